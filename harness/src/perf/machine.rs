//! What machine a run was on: CPU model, cores, load average at the start, kernel. Read from
//! `/proc` on Linux; elsewhere the fields say `unknown`.

use std::path::Path;

/// The machine a performance run was measured on.
#[derive(Debug, Clone, PartialEq)]
pub struct Machine {
    /// `model name` from `/proc/cpuinfo`.
    pub cpu: String,
    /// Cores available to this process.
    pub cores: usize,
    /// The 1, 5 and 15 minute load averages when the run started.
    pub load: String,
    /// The kernel release.
    pub kernel: String,
}

impl Machine {
    /// Describes this machine now.
    pub fn detect() -> Machine {
        let read = |path: &str| std::fs::read_to_string(Path::new(path)).unwrap_or_default();
        Machine {
            cpu: cpu_model(&read("/proc/cpuinfo")).unwrap_or_else(|| "unknown".into()),
            cores: std::thread::available_parallelism().map_or(1, |n| n.get()),
            load: load_average(&read("/proc/loadavg")).unwrap_or_else(|| "unknown".into()),
            kernel: read("/proc/sys/kernel/osrelease").trim().to_owned(),
        }
    }
}

/// The first `model name` of a `/proc/cpuinfo` text.
pub(crate) fn cpu_model(cpuinfo: &str) -> Option<String> {
    cpuinfo.lines().find_map(|line| {
        let (key, value) = line.split_once(':')?;
        (key.trim() == "model name").then(|| value.trim().to_owned())
    })
}

/// The three load averages of a `/proc/loadavg` text.
pub(crate) fn load_average(loadavg: &str) -> Option<String> {
    let fields: Vec<&str> = loadavg.split_whitespace().take(3).collect();
    (fields.len() == 3).then(|| fields.join(" "))
}

/// `VmHWM` (peak resident set) of a `/proc/<pid>/status` text, in kilobytes.
pub(crate) fn vm_hwm_kb(status: &str) -> Option<u64> {
    status.lines().find_map(|line| {
        let rest = line.strip_prefix("VmHWM:")?;
        rest.split_whitespace().next()?.parse().ok()
    })
}

/// The peak resident set of a running process, in kilobytes (Linux only).
pub(crate) fn peak_rss_kb(pid: u32) -> Option<u64> {
    vm_hwm_kb(&std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?)
}

/// The time on CPU of a `/proc/<pid>/task/<tid>/schedstat` text (its first field), nanoseconds.
pub(crate) fn schedstat_run_ns(schedstat: &str) -> Option<u64> {
    schedstat.split_whitespace().next()?.parse().ok()
}

/// CPU time so far of every live thread of a process, nanoseconds (Linux only; a thread that
/// already exited is not counted).
pub(crate) fn cpu_ns(pid: u32) -> Option<u64> {
    let tasks = std::fs::read_dir(format!("/proc/{pid}/task")).ok()?;
    let mut total = 0;
    for task in tasks.flatten() {
        let text = std::fs::read_to_string(task.path().join("schedstat")).unwrap_or_default();
        total += schedstat_run_ns(&text).unwrap_or(0);
    }
    Some(total)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_proc_texts() {
        let cpuinfo = "processor\t: 0\nvendor_id\t: X\nmodel name\t: Example CPU @ 2.0GHz\n\nprocessor\t: 1\nmodel name\t: Other\n";
        assert_eq!(cpu_model(cpuinfo).as_deref(), Some("Example CPU @ 2.0GHz"));
        assert_eq!(cpu_model("nothing"), None);
        assert_eq!(
            load_average("1.91 2.26 5.30 3/456 7890\n").as_deref(),
            Some("1.91 2.26 5.30")
        );
        assert_eq!(load_average("1.0"), None);
        let status =
            "Name:\tmodyo-mcp\nVmPeak:\t  900000 kB\nVmHWM:\t   23456 kB\nVmRSS:\t 20000 kB\n";
        assert_eq!(vm_hwm_kb(status), Some(23_456));
        assert_eq!(vm_hwm_kb("Name: x\n"), None);
        assert_eq!(schedstat_run_ns("123456789 2345 67\n"), Some(123_456_789));
        assert_eq!(schedstat_run_ns(""), None);
    }

    #[test]
    fn this_process_has_spent_cpu_time() {
        if cfg!(target_os = "linux") {
            let spent = cpu_ns(std::process::id()).expect("/proc/self/task");
            assert!(spent > 0);
        }
    }
}
