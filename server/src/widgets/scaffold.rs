//! `widgets-scaffold`: writes a small but real widget project (React + Vite + Dynamic UI,
//! pushed with the Modyo CLI) into `targetDir/{name}`, then reads back what is on disk.
//!
//! The project: `package.json`, `index.html`, `vite.config.js`, `src/main.jsx` (mounts the
//! widget on `#{name}` inside `DContextProvider`), `src/App.jsx` (the chosen catalogue
//! pattern), `.env.example` (the Modyo CLI settings, without a token), `.gitignore` and a
//! `README.md`. Files are created with `create_new`, so nothing that exists is ever
//! overwritten; a failure half-way removes what this call created.

use std::fs::{self, OpenOptions};
use std::io::{self, Write};
use std::path::{Path, PathBuf};

use schemars::JsonSchema;
use serde::Serialize;
use serde_json::json;

use super::{Catalogue, Pattern};

/// The pattern a project starts from when none is named.
pub(crate) const DEFAULT_PATTERN: &str = "login-form";
/// Longest accepted widget name.
const MAX_NAME: usize = 64;

/// A file of the project as found on disk after the write (part of `widgets-scaffold`'s
/// `data`, strict).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
#[schemars(deny_unknown_fields)]
pub(crate) struct FileOnDisk {
    /// Path relative to the project, with `/`.
    pub(crate) path: String,
    /// Size in bytes, from the file system.
    #[schemars(with = "i64")]
    pub(crate) bytes: u64,
}

/// A project written and read back.
#[derive(Debug, Clone)]
pub(crate) struct Scaffolded {
    /// The project directory, absolute.
    pub(crate) root: PathBuf,
    /// Every file under it, sorted by path.
    pub(crate) files: Vec<FileOnDisk>,
}

/// Why a project was not written.
#[derive(Debug, thiserror::Error)]
pub(crate) enum ScaffoldError {
    /// The project directory exists and has something in it.
    #[error("{0} already exists and is not empty; choose another name or targetDir")]
    NotEmpty(PathBuf),
    /// The project path is a file.
    #[error("{0} exists and is not a directory")]
    NotADirectory(PathBuf),
    /// A file-system operation failed.
    #[error("{action} {path}: {source}")]
    Io {
        /// What was being done.
        action: &'static str,
        /// On what.
        path: PathBuf,
        /// Why it failed.
        source: io::Error,
    },
    /// A file read back differs from what was written.
    #[error("{0} does not hold what was written")]
    Mismatch(String),
}

/// Checks a widget name: kebab-case (`promo-banner`), lower-case letters and digits in
/// groups joined by single hyphens, starting with a letter, at most 64 characters. The error
/// says what is wrong and suggests a fixed name.
pub(crate) fn check_name(name: &str) -> Result<(), String> {
    let valid = !name.is_empty()
        && name.len() <= MAX_NAME
        && name.starts_with(|c: char| c.is_ascii_lowercase())
        && name.split('-').all(|part| {
            !part.is_empty()
                && part
                    .chars()
                    .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit())
        });
    if valid {
        return Ok(());
    }
    let suggestion = kebab(name);
    let hint = if suggestion.is_empty() || suggestion == name {
        "use lower-case letters and digits joined by single hyphens, starting with a letter (promo-banner)".to_owned()
    } else {
        format!("try '{suggestion}'")
    };
    Err(format!(
        "widget name '{name}' is not kebab-case (at most {MAX_NAME} characters); {hint}"
    ))
}

/// A kebab-case rendering of `name` (`My Widget_2` -> `my-widget-2`), possibly empty.
fn kebab(name: &str) -> String {
    let mut out = String::new();
    let mut previous_lower = false;
    for c in name.chars() {
        if c.is_ascii_alphanumeric() {
            if c.is_ascii_uppercase() && previous_lower && !out.ends_with('-') {
                out.push('-');
            }
            out.push(c.to_ascii_lowercase());
            previous_lower = c.is_ascii_lowercase() || c.is_ascii_digit();
        } else {
            if !out.is_empty() && !out.ends_with('-') {
                out.push('-');
            }
            previous_lower = false;
        }
    }
    let out = out
        .trim_matches('-')
        .trim_start_matches(|c: char| c.is_ascii_digit());
    let out = out.trim_start_matches('-');
    out.chars()
        .take(MAX_NAME)
        .collect::<String>()
        .trim_end_matches('-')
        .to_owned()
}

/// `promo-banner` -> `Promo Banner`.
fn title(name: &str) -> String {
    name.split('-')
        .map(|part| {
            let mut chars = part.chars();
            match chars.next() {
                Some(first) => first.to_ascii_uppercase().to_string() + chars.as_str(),
                None => String::new(),
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}

fn indent(text: &str, spaces: usize) -> String {
    let pad = " ".repeat(spaces);
    text.lines()
        .map(|line| {
            if line.is_empty() {
                String::new()
            } else {
                format!("{pad}{line}")
            }
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// The files of a project named `name` built on `pattern`: `(relative path, content)`.
pub(crate) fn files(
    name: &str,
    pattern: &Pattern,
    catalogue: &Catalogue,
) -> Vec<(&'static str, String)> {
    let package = &catalogue.package;
    let title = title(name);
    let manifest = json!({
        "name": name,
        "version": "0.1.0",
        "private": true,
        "type": "module",
        "scripts": {
            "dev": "vite",
            "build": "vite build",
            "preview": "vite preview",
            "push": format!("modyo-cli push {name}"),
        },
        "dependencies": {
            package.as_str(): format!("^{}", catalogue.version),
            "react": "~18.3.1",
            "react-dom": "~18.2.0",
        },
        "devDependencies": {
            "@modyo/cli": "^3.5.5",
            "@vitejs/plugin-react": "^6.3.0",
            "vite": "^8.4.0",
        },
    });
    let manifest = serde_json::to_string_pretty(&manifest).unwrap_or_default() + "\n";

    let index = format!(
        r#"<!doctype html>
<html lang="en">
  <head>
    <meta charset="UTF-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1.0" />
    <title>{title}</title>
  </head>
  <body>
    <!-- In Modyo, the widget's HTML holds this same element. -->
    <div id="{name}"></div>
    <script type="module" src="/src/main.jsx"></script>
  </body>
</html>
"#
    );

    let vite = r#"import { defineConfig } from 'vite';
import react from '@vitejs/plugin-react';

// One main.js and one main.css, with relative URLs: the bundle Modyo's CLI uploads.
export default defineConfig({
  plugins: [react()],
  base: './',
  build: {
    outDir: 'dist',
    rollupOptions: {
      output: {
        entryFileNames: 'main.js',
        assetFileNames: 'main.[ext]',
      },
    },
  },
});
"#
    .to_owned();

    let main = format!(
        r#"import {{ StrictMode }} from 'react';
import {{ createRoot }} from 'react-dom/client';
import {{ DContextProvider }} from '{package}';
import '{package}/dist/css/dynamic-ui.css';
import '{package}/dist/css/bootstrap-icons.css';
import App from './App';

const container = document.getElementById('{name}');

if (container) {{
  createRoot(container).render(
    <StrictMode>
      <DContextProvider>
        <App />
      </DContextProvider>
    </StrictMode>,
  );
}}
"#
    );

    let mut names = catalogue.pattern_component_names(pattern);
    names.sort_unstable();
    names.dedup();
    let hooks: Vec<&str> = ["useEffect", "useMemo", "useState"]
        .into_iter()
        .filter(|hook| pattern.setup.contains(hook))
        .collect();
    let mut app = String::new();
    if !hooks.is_empty() {
        app.push_str(&format!(
            "import {{ {} }} from 'react';\n",
            hooks.join(", ")
        ));
    }
    app.push_str(&format!(
        "import {{ {} }} from '{package}';\n\n// {}: {}\nexport default function App() {{\n",
        names.join(", "),
        pattern.name,
        pattern.description
    ));
    if !pattern.setup.trim().is_empty() {
        app.push_str(&indent(&pattern.setup, 2));
        app.push_str("\n\n");
    }
    app.push_str(&format!(
        "  return (\n{}\n  );\n}}\n",
        indent(&pattern.jsx, 4)
    ));

    let env = format!(
        r#"# Modyo CLI settings for `npm run push` (modyo-cli push {name}).
# Copy this file to .env and fill it in. Never commit .env: it holds your token.
MODYO_ACCOUNT_URL=https://your-org.modyo.com
MODYO_SITE_HOST=your-site
MODYO_TOKEN=
MODYO_BUILD_DIRECTORY=dist
"#
    );

    let gitignore = "node_modules/\ndist/\n.env\n".to_owned();

    let readme = format!(
        r#"# {title}

A Modyo widget built with React, Vite and Dynamic UI (`{package}`), scaffolded from the
`{pattern_id}` pattern ({pattern_name}).

## Develop

```bash
npm install
npm run dev
```

The widget mounts on `<div id="{name}">` (see `index.html` and `src/main.jsx`); its UI is in
`src/App.jsx`.

## Publish

1. Copy `.env.example` to `.env` and set `MODYO_ACCOUNT_URL`, `MODYO_SITE_HOST` and
   `MODYO_TOKEN` (never commit `.env`).
2. `npm run build`, then `npm run push` uploads `dist/` as the widget `{name}`.

Check the project against the component catalogue with the `widgets-validate` tool.
"#,
        pattern_id = pattern.id,
        pattern_name = pattern.name,
    );

    vec![
        (".env.example", env),
        (".gitignore", gitignore),
        ("README.md", readme),
        ("index.html", index),
        ("package.json", manifest),
        ("src/App.jsx", app),
        ("src/main.jsx", main),
        ("vite.config.js", vite),
    ]
}

/// Writes `files` into `target_dir/name`, refusing a project directory that exists with
/// anything in it, and reads the result back. Blocking: call it off the runtime.
pub(crate) fn write(
    target_dir: &Path,
    name: &str,
    files: &[(&'static str, String)],
) -> Result<Scaffolded, ScaffoldError> {
    let target = std::path::absolute(target_dir).unwrap_or_else(|_| target_dir.to_path_buf());
    let root = target.join(name);
    match fs::symlink_metadata(&root) {
        Ok(meta) if meta.is_dir() => {
            let mut entries = fs::read_dir(&root).map_err(|source| ScaffoldError::Io {
                action: "cannot read",
                path: root.clone(),
                source,
            })?;
            if entries.next().is_some() {
                return Err(ScaffoldError::NotEmpty(root));
            }
        }
        Ok(_) => return Err(ScaffoldError::NotADirectory(root)),
        Err(e) if e.kind() == io::ErrorKind::NotFound => {}
        Err(source) => {
            return Err(ScaffoldError::Io {
                action: "cannot inspect",
                path: root,
                source,
            });
        }
    }
    let mut created = Created::default();
    let result = write_all(&root, files, &mut created).and_then(|()| read_back(&root, files));
    if result.is_err() {
        created.undo();
    }
    result
}

/// What this call created, so a failure can take it back (files, then folders, deepest
/// first); nothing that existed before is touched.
#[derive(Default)]
struct Created {
    dirs: Vec<PathBuf>,
    files: Vec<PathBuf>,
}

impl Created {
    fn undo(&self) {
        for file in self.files.iter().rev() {
            let _ = fs::remove_file(file);
        }
        for dir in self.dirs.iter().rev() {
            let _ = fs::remove_dir(dir);
        }
    }

    fn dir_all(&mut self, dir: &Path) -> Result<(), ScaffoldError> {
        let mut missing = Vec::new();
        let mut cursor = Some(dir);
        while let Some(d) = cursor {
            if d.exists() {
                break;
            }
            missing.push(d.to_path_buf());
            cursor = d.parent();
        }
        for d in missing.into_iter().rev() {
            match fs::create_dir(&d) {
                Ok(()) => self.dirs.push(d),
                Err(e) if e.kind() == io::ErrorKind::AlreadyExists && d.is_dir() => {}
                Err(source) => {
                    return Err(ScaffoldError::Io {
                        action: "cannot create",
                        path: d,
                        source,
                    });
                }
            }
        }
        Ok(())
    }
}

fn write_all(
    root: &Path,
    files: &[(&'static str, String)],
    created: &mut Created,
) -> Result<(), ScaffoldError> {
    created.dir_all(root)?;
    for (rel, content) in files {
        let path = root.join(rel);
        if let Some(parent) = path.parent() {
            created.dir_all(parent)?;
        }
        let io_error = |source| ScaffoldError::Io {
            action: "cannot write",
            path: path.clone(),
            source,
        };
        let mut file = OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&path)
            .map_err(io_error)?;
        created.files.push(path.clone());
        file.write_all(content.as_bytes()).map_err(io_error)?;
        file.sync_all().map_err(io_error)?;
    }
    Ok(())
}

/// Lists every file under `root` as it is on disk, and checks each written file holds its
/// content.
fn read_back(root: &Path, files: &[(&'static str, String)]) -> Result<Scaffolded, ScaffoldError> {
    for (rel, content) in files {
        let path = root.join(rel);
        let on_disk = fs::read(&path).map_err(|source| ScaffoldError::Io {
            action: "cannot read back",
            path,
            source,
        })?;
        if on_disk != content.as_bytes() {
            return Err(ScaffoldError::Mismatch((*rel).to_owned()));
        }
    }
    let mut found = Vec::new();
    list(root, root, &mut found).map_err(|source| ScaffoldError::Io {
        action: "cannot list",
        path: root.to_path_buf(),
        source,
    })?;
    found.sort_by(|a, b| a.path.cmp(&b.path));
    let root = root.canonicalize().unwrap_or_else(|_| root.to_path_buf());
    Ok(Scaffolded { root, files: found })
}

fn list(root: &Path, dir: &Path, out: &mut Vec<FileOnDisk>) -> io::Result<()> {
    for entry in fs::read_dir(dir)? {
        let entry = entry?;
        let kind = entry.file_type()?;
        let path = entry.path();
        if kind.is_dir() {
            list(root, &path, out)?;
        } else if kind.is_file() {
            let rel = path.strip_prefix(root).unwrap_or(&path);
            out.push(FileOnDisk {
                path: rel
                    .components()
                    .map(|c| c.as_os_str().to_string_lossy())
                    .collect::<Vec<_>>()
                    .join("/"),
                bytes: entry.metadata()?.len(),
            });
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::widgets::catalogue;

    #[test]
    fn names_must_be_kebab_case_and_errors_suggest_one() {
        for ok in ["a", "promo-banner", "widget2", "a1-b2-c3"] {
            assert!(check_name(ok).is_ok(), "{ok}");
        }
        for (bad, hint) in [
            ("PromoBanner", "try 'promo-banner'"),
            ("promo_banner", "try 'promo-banner'"),
            ("promo--banner", "try 'promo-banner'"),
            ("-promo", "try 'promo'"),
            ("promo-", "try 'promo'"),
            ("2fast", "try 'fast'"),
            ("", "lower-case letters"),
            ("../evil", "try 'evil'"),
            ("a/b", "try 'a-b'"),
            ("ñandú", "try 'and'"),
        ] {
            let err = check_name(bad).unwrap_err();
            assert!(err.contains(hint), "{bad}: {err}");
            assert!(err.contains("kebab-case"), "{bad}: {err}");
        }
        assert!(check_name(&"a".repeat(65)).is_err());
    }

    #[test]
    fn every_pattern_scaffolds_an_app_the_validator_accepts() {
        let c = catalogue();
        for pattern in &c.patterns {
            for (rel, content) in files("promo-banner", pattern, c) {
                if rel.ends_with(".jsx") {
                    let found = crate::widgets::validate::findings_of(rel, &content, c);
                    assert!(
                        found.is_empty(),
                        "{} {rel}: {found:?}\n{content}",
                        pattern.id
                    );
                }
                if rel == "package.json" {
                    let manifest: serde_json::Value = serde_json::from_str(&content).unwrap();
                    assert_eq!(manifest["name"], "promo-banner");
                }
            }
        }
    }

    #[test]
    fn the_token_is_never_filled_in() {
        let c = catalogue();
        let env = files("w", &c.patterns[0], c)
            .into_iter()
            .find(|(rel, _)| *rel == ".env.example")
            .unwrap()
            .1;
        assert!(env.lines().any(|l| l == "MODYO_TOKEN="), "{env}");
    }
}
