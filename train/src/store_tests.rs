//! The store's semantics on memory, disk and an S3 server, and how it
//! tells failures that can pass from refusals.

use super::*;

fn check_semantics(store: &Store) {
    assert_eq!(store.get("shards/a.gms").expect("get"), None);
    assert!(
        store
            .create("shards/a.gms", b"one".to_vec())
            .expect("create")
    );
    // A second writer of the same name loses, and the first's bytes stay.
    assert!(
        !store
            .create("shards/a.gms", b"two".to_vec())
            .expect("create")
    );
    assert_eq!(
        store.get("shards/a.gms").expect("get"),
        Some(b"one".to_vec())
    );
    assert!(
        store
            .create("shards/b.gms", b"three".to_vec())
            .expect("create")
    );
    store.put("latest", b"gen-0001".to_vec()).expect("put");
    store.put("latest", b"gen-0002".to_vec()).expect("put");
    assert_eq!(
        store.get("latest").expect("get"),
        Some(b"gen-0002".to_vec())
    );
    let listed = store.list("shards").expect("list");
    assert_eq!(
        listed,
        vec![
            Listed {
                name: "shards/a.gms".to_string(),
                size: 3
            },
            Listed {
                name: "shards/b.gms".to_string(),
                size: 5
            },
        ]
    );
    assert!(store.list("checkpoints").expect("list").is_empty());
    store.delete("shards/a.gms").expect("delete");
    store
        .delete("shards/a.gms")
        .expect("deleting twice is nothing");
    assert_eq!(store.list("shards").expect("list").len(), 1);
}

#[test]
fn an_in_memory_store_creates_once_replaces_and_lists() {
    check_semantics(&Store::in_memory());
}

#[test]
fn a_local_store_does_the_same_on_disk() {
    let directory = tempfile::tempdir().expect("temp dir");
    let run = directory.path().join("run");
    let store = Store::open(run.to_str().expect("utf-8")).expect("opens");
    check_semantics(&store);
    assert!(run.join("shards/b.gms").is_file());
    assert_eq!(store.directory(), Some(run.as_path()));
    // The same directory as a file:// URL.
    let url = format!("file://{}", run.display());
    let again = Store::open(&url).expect("opens");
    assert_eq!(
        again.get("latest").expect("get"),
        Some(b"gen-0002".to_vec())
    );
}

#[test]
#[ignore = "needs an S3-protocol server: scripts/test-s3.sh starts one and runs it"]
fn an_s3_store_does_the_same_on_the_server() {
    // Set by scripts/test-s3.sh, which starts an S3-protocol server.
    let base = std::env::var("GM_S3_RUN")
        .expect("GM_S3_RUN names a run on an S3 server (scripts/test-s3.sh sets it)");
    let location = format!(
        "{}/store-{}",
        base.trim_end_matches('/'),
        std::process::id()
    );
    let store = Store::open(&location).expect("opens");
    assert_eq!(store.directory(), None);
    check_semantics(&store);
    assert_eq!(
        store.get_head("shards/b.gms", 2).expect("head"),
        Some(b"th".to_vec())
    );
}

fn failure(kind: std::io::ErrorKind) -> object_store::Error {
    object_store::Error::Generic {
        store: "test",
        source: Box::new(std::io::Error::from(kind)),
    }
}

#[test]
fn failures_that_can_pass_are_told_from_refusals() {
    use std::io::ErrorKind;
    for kind in [
        ErrorKind::TimedOut,
        ErrorKind::ConnectionRefused,
        ErrorKind::ConnectionReset,
        ErrorKind::BrokenPipe,
    ] {
        assert!(transient(&failure(kind)), "{kind:?}");
    }
    assert!(!transient(&failure(ErrorKind::InvalidData)));
    let answered = |message: &str| object_store::Error::Generic {
        store: "test",
        source: message.into(),
    };
    for message in [
        "Server returned non-2xx status code: 503 Service Unavailable: ",
        "Server returned non-2xx status code: 500 Internal Server Error: ",
        "Server returned non-2xx status code: 429 Too Many Requests: ",
        "Server returned error response: <Code>SlowDown</Code>",
    ] {
        assert!(transient(&answered(message)), "{message}");
    }
    assert!(!transient(&answered(
        "Server returned non-2xx status code: 400 Bad Request: "
    )));
    let source = || Box::new(std::io::Error::other("refused")) as _;
    for refusal in [
        object_store::Error::PermissionDenied {
            path: "x".to_string(),
            source: source(),
        },
        object_store::Error::Unauthenticated {
            path: "x".to_string(),
            source: source(),
        },
        object_store::Error::NotFound {
            path: "x".to_string(),
            source: source(),
        },
    ] {
        assert!(!transient(&refusal), "{refusal}");
    }
}

#[test]
fn failures_that_can_pass_are_retried_within_the_patience() {
    use std::io::ErrorKind;
    let store = Store::in_memory().with_patience(Duration::from_secs(60));
    let started = Instant::now();
    let mut tries = 0;
    let value = store
        .retrying("GET x", "x", |retried| {
            tries += 1;
            assert_eq!(retried, tries > 1);
            if tries < 3 {
                Err(failure(ErrorKind::TimedOut))
            } else {
                Ok(7)
            }
        })
        .expect("passes");
    assert_eq!((value, tries), (7, 3));
    // Two waits with jitter: at least half of 0.5 s, then of 1 s.
    assert!(started.elapsed() >= Duration::from_millis(750));
    // A refusal is not retried.
    let mut tries = 0;
    let error = store
        .retrying("GET x", "x", |_| {
            tries += 1;
            Err::<(), _>(object_store::Error::PermissionDenied {
                path: "x".to_string(),
                source: Box::new(std::io::Error::other("denied")),
            })
        })
        .expect_err("refused");
    assert_eq!(tries, 1);
    assert!(!error.is_transient());
    // Without patience, or once the process is asked to stop, a failure
    // that can pass is given up at once and says that it could pass.
    let stopping = Arc::new(AtomicBool::new(true));
    for store in [
        Store::in_memory().with_patience(Duration::ZERO),
        Store::in_memory().with_stopping(Arc::clone(&stopping)),
    ] {
        let mut tries = 0;
        let error = store
            .retrying("PUT x", "x", |_| {
                tries += 1;
                Err::<(), _>(failure(ErrorKind::ConnectionRefused))
            })
            .expect_err("given up");
        assert_eq!(tries, 1);
        assert!(error.is_transient(), "{error}");
    }
}

#[test]
fn bad_locations_say_what_is_wrong() {
    for (location, expected) in [
        ("s3://", "invalid run location 's3://'"),
        ("ftp://host/run", "invalid run location 'ftp://host/run'"),
    ] {
        let error = Store::open(location).expect_err(location).to_string();
        assert!(error.contains(expected), "{location}: {error}");
        assert!(!error.contains('\n'), "{error}");
    }
}
