//! The probe's tests: a response gives its result or its error, a missing server says how to
//! build it.

use super::*;

#[test]
fn a_response_gives_its_result_or_its_error_and_nothing_else() {
    let take = take_result;
    assert_eq!(
        take(json!({"jsonrpc": "2.0", "id": 1, "result": {"a": [1]}})),
        Some(Ok(json!({"a": [1]})))
    );
    assert_eq!(
        take(json!({"id": 1, "error": {"code": -32602, "message": "bad"}})),
        Some(Err((-32602, "bad".to_owned())))
    );
    assert_eq!(
        take(json!({"id": 1, "error": {}})),
        Some(Err((0, String::new())))
    );
    assert_eq!(take(json!({"id": 1, "result": 1, "error": {}})), None);
    assert_eq!(take(json!({"id": 1})), None);
    assert_eq!(take(json!([1])), None);
}

#[test]
fn a_missing_server_says_how_to_build_it() {
    let err = locate_server(Some(Path::new("/nonexistent/modyo-mcp"))).unwrap_err();
    let text = err.to_string();
    assert!(text.contains("cargo build -p modyo-mcp"), "{text}");
    assert!(text.contains("/nonexistent/modyo-mcp"), "{text}");
}
