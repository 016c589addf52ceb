//! Where a run lives: a local directory, or an object store given by URL
//! (`s3://bucket/prefix` on any S3-compatible store, `gs://…`, `az://…`),
//! through the `object_store` crate. Self-play workers and the trainer meet
//! only here.
//!
//! Every write is whole or absent: [`Store::create`] writes an object only
//! if its name is free (shards: never overwritten, never half-visible),
//! [`Store::put`] replaces one atomically (the pointer to the newest
//! checkpoint, the logs of the run's one trainer). On a local directory
//! both go through a staging file in the same directory, published by a
//! hard link (create) or a rename (replace); on S3, Google Cloud Storage
//! and Azure a create is a conditional request (`If-None-Match: *`).
//!
//! The cloud backends take their settings from the environment, the way
//! their own tools do: `AWS_ACCESS_KEY_ID`, `AWS_SECRET_ACCESS_KEY`,
//! `AWS_REGION`, `AWS_ENDPOINT` (an S3-compatible server) and
//! `AWS_ALLOW_HTTP=true` (a server without TLS); `GOOGLE_*` and `AZURE_*`
//! likewise. Only variables with those prefixes are read.
//!
//! The calls block: each store runs the async client on a runtime of its
//! own, so the rest of the program stays synchronous.
//!
//! A request that fails for a reason that can pass (a timeout, a refused
//! or reset connection, a 5xx or throttling answer) is retried with
//! exponential backoff and jitter for up to the store's patience
//! ([`Store::with_patience`], [`DEFAULT_PATIENCE`]), saying on stderr what
//! it waits for; one that cannot pass (bad credentials, no such bucket, an
//! invalid name) fails at once. A create retried after an answer that never
//! came may find its own object already written: it compares the bytes and
//! counts it as written.

use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use futures::TryStreamExt;
use object_store::local::LocalFileSystem;
use object_store::memory::InMemory;
use object_store::path::Path as Key;
use object_store::{ObjectStore, ObjectStoreExt, PutMode, PutOptions, PutPayload};
use thiserror::Error;

/// Why the store could not be used.
#[derive(Debug, Error)]
pub enum StoreError {
    /// The location is not one the store reads.
    #[error("invalid run location '{location}': {reason}")]
    Location {
        /// The location given.
        location: String,
        /// What is wrong with it.
        reason: String,
    },
    /// A request failed.
    #[error("{location}/{key}: {reason}")]
    Request {
        /// The run's location.
        location: String,
        /// The object.
        key: String,
        /// The failure: the store's message, and its first cause when that
        /// says more.
        reason: String,
        /// Whether it could pass (a timeout, a lost connection, an
        /// overloaded server): it was retried until the store's patience
        /// ran out, or until the process was asked to stop.
        transient: bool,
    },
}

impl StoreError {
    /// Whether the failure could pass by itself: the store did not answer,
    /// or answered that it was overloaded.
    pub fn is_transient(&self) -> bool {
        matches!(
            self,
            StoreError::Request {
                transient: true,
                ..
            }
        )
    }
}

/// How long a request that fails for a reason that can pass is retried by
/// default: 15 minutes.
pub const DEFAULT_PATIENCE: Duration = Duration::from_secs(15 * 60);

/// The first wait before a retry, and the longest.
const FIRST_BACKOFF: Duration = Duration::from_millis(500);
const LONGEST_BACKOFF: Duration = Duration::from_secs(30);

/// An object of a listing: its name below the run and its size.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Listed {
    /// The name below the run's location (`shards/….gms`).
    pub name: String,
    /// Bytes.
    pub size: u64,
}

/// A run's storage (clones share it).
#[derive(Clone)]
pub struct Store {
    inner: Arc<dyn ObjectStore>,
    prefix: Key,
    location: String,
    /// The directory, for a local run.
    directory: Option<PathBuf>,
    runtime: Arc<tokio::runtime::Runtime>,
    /// Whole objects read, by name.
    reads: Arc<std::sync::Mutex<std::collections::HashMap<String, usize>>>,
    /// How long failures that can pass are retried.
    patience: Duration,
    /// Set when the process is asked to stop: retries end at once.
    stopping: Option<Arc<AtomicBool>>,
}

impl std::fmt::Debug for Store {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Store")
            .field("location", &self.location)
            .finish_non_exhaustive()
    }
}

/// The prefixes of the environment variables the cloud backends read.
const ENVIRONMENT_PREFIXES: [&str; 3] = ["AWS_", "GOOGLE_", "AZURE_"];

impl Store {
    /// The store at `location`: a URL with a scheme (`s3://`, `gs://`,
    /// `az://`, `file://`), or a local directory, created if missing.
    pub fn open(location: &str) -> Result<Store, StoreError> {
        let invalid = |reason: String| StoreError::Location {
            location: location.to_string(),
            reason,
        };
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .map_err(|e| invalid(format!("starting the storage client: {e}")))?;
        let url = location
            .contains("://")
            .then(|| url::Url::parse(location))
            .transpose()
            .map_err(|e| invalid(e.to_string()))?;
        let directory = match &url {
            None => Some(PathBuf::from(location)),
            Some(url) if url.scheme() == "file" => Some(
                url.to_file_path()
                    .map_err(|()| invalid("not a local path".to_string()))?,
            ),
            Some(_) => None,
        };
        let (inner, prefix): (Arc<dyn ObjectStore>, Key) = match (&directory, &url) {
            (Some(directory), _) => {
                std::fs::create_dir_all(directory)
                    .map_err(|e| invalid(format!("creating the directory: {e}")))?;
                let local = LocalFileSystem::new_with_prefix(directory)
                    .map_err(|e| invalid(e.to_string()))?;
                (Arc::new(local), Key::default())
            }
            (None, Some(url)) => {
                let options = std::env::vars().filter(|(name, value)| {
                    !value.is_empty() && ENVIRONMENT_PREFIXES.iter().any(|p| name.starts_with(p))
                });
                let (store, prefix) = cloud_store(url, options).map_err(|e| {
                    invalid(match e {
                        object_store::Error::NotImplemented { .. } => format!(
                            "{} is not built into this program (its `cloud` feature, on by default, adds s3, gs and az)",
                            url.scheme()
                        ),
                        other => other.to_string(),
                    })
                })?;
                (Arc::from(store), prefix)
            }
            (None, None) => unreachable!("a location is a directory or a URL"),
        };
        Ok(Store {
            inner,
            prefix,
            location: location.trim_end_matches('/').to_string(),
            directory,
            runtime: Arc::new(runtime),
            reads: Arc::default(),
            patience: DEFAULT_PATIENCE,
            stopping: None,
        })
    }

    /// The same store, retrying failures that can pass for `patience`
    /// (zero: never).
    pub fn with_patience(mut self, patience: Duration) -> Store {
        self.patience = patience;
        self
    }

    /// The same store, whose retries end as soon as `stopping` is set (the
    /// process was asked to stop and has its own use for the time left).
    pub fn with_stopping(mut self, stopping: Arc<AtomicBool>) -> Store {
        self.stopping = Some(stopping);
        self
    }

    /// How long failures that can pass are retried.
    pub fn patience(&self) -> Duration {
        self.patience
    }

    /// Whether the process was asked to stop ([`Store::with_stopping`]).
    pub fn is_stopping(&self) -> bool {
        self.stopping
            .as_ref()
            .is_some_and(|flag| flag.load(Ordering::Relaxed))
    }

    /// A store in memory (tests), named `memory://PID-N`.
    pub fn in_memory() -> Store {
        Store {
            inner: Arc::new(InMemory::new()),
            prefix: Key::default(),
            location: {
                static STORES: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
                let number = STORES.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                format!("memory://{}-{number}", std::process::id())
            },
            directory: None,
            runtime: Arc::new(
                tokio::runtime::Builder::new_current_thread()
                    .enable_all()
                    .build()
                    .expect("a current-thread runtime"),
            ),
            reads: Arc::default(),
            patience: DEFAULT_PATIENCE,
            stopping: None,
        }
    }

    /// The location, as given.
    pub fn location(&self) -> &str {
        &self.location
    }

    /// The run's directory, when the store is local.
    pub fn directory(&self) -> Option<&std::path::Path> {
        self.directory.as_deref()
    }

    fn key(&self, name: &str) -> Key {
        name.split('/')
            .filter(|part| !part.is_empty())
            .fold(self.prefix.clone(), |key, part| key.join(part))
    }

    fn failed(&self, name: &str) -> impl FnOnce(object_store::Error) -> StoreError {
        let location = self.location.clone();
        let key = name.to_string();
        move |error| {
            // The store's errors repeat their causes in their messages: the
            // message, then the root cause if it is not already in it.
            let message = error.to_string();
            let mut root: &dyn std::error::Error = &error;
            while let Some(cause) = root.source() {
                root = cause;
            }
            let cause = root.to_string();
            let reason = if message.contains(&cause) {
                message
            } else {
                format!("{message}: {cause}")
            };
            StoreError::Request {
                location,
                key,
                reason,
                transient: transient(&error),
            }
        }
    }

    /// `attempt` until it succeeds, fails for good, or fails for a reason
    /// that can pass for longer than the store's patience (or until the
    /// process is asked to stop); `what` names the request on stderr
    /// (`PUT shards/…`). `attempt` is told whether an earlier attempt
    /// failed for a reason that can pass: its request may have been done.
    fn retrying<T>(
        &self,
        what: &str,
        name: &str,
        mut attempt: impl FnMut(bool) -> Result<T, object_store::Error>,
    ) -> Result<T, StoreError> {
        let started = Instant::now();
        let mut backoff = FIRST_BACKOFF;
        let mut failures = 0u32;
        loop {
            match attempt(failures > 0) {
                Ok(value) => {
                    if failures > 0 {
                        eprintln!(
                            "store: {} answers again: {what} done after {:.0} s and {failures} failed tries",
                            self.location,
                            started.elapsed().as_secs_f64()
                        );
                    }
                    return Ok(value);
                }
                Err(error) => {
                    let error = self.failed(name)(error);
                    let waited = started.elapsed();
                    if !error.is_transient() || waited >= self.patience || self.is_stopping() {
                        return Err(error);
                    }
                    if failures == 0 {
                        eprintln!(
                            "store: {what} failed ({error}); retrying for up to {:.0} s",
                            self.patience.as_secs_f64()
                        );
                    }
                    failures += 1;
                    // Full jitter around the backoff, within the patience left.
                    let jitter = 0.5 + rand::random::<f64>();
                    let pause = backoff.mul_f64(jitter).min(self.patience - waited);
                    let until = Instant::now() + pause;
                    while Instant::now() < until && !self.is_stopping() {
                        std::thread::sleep(
                            (until - Instant::now()).min(Duration::from_millis(100)),
                        );
                    }
                    backoff = (backoff * 2).min(LONGEST_BACKOFF);
                }
            }
        }
    }

    /// How many times each object was read whole through this store (and
    /// its clones).
    pub fn reads(&self) -> std::collections::HashMap<String, usize> {
        self.reads.lock().map(|r| r.clone()).unwrap_or_default()
    }

    /// The object `name`, or `None` if there is none.
    pub fn get(&self, name: &str) -> Result<Option<Vec<u8>>, StoreError> {
        if let Ok(mut reads) = self.reads.lock() {
            *reads.entry(name.to_string()).or_default() += 1;
        }
        let key = self.key(name);
        self.retrying(&format!("GET {name}"), name, |_| {
            let result = self.runtime.block_on(async {
                let found = self.inner.get(&key).await?;
                found.bytes().await
            });
            match result {
                Ok(bytes) => Ok(Some(bytes.to_vec())),
                Err(object_store::Error::NotFound { .. }) => Ok(None),
                Err(error) => Err(error),
            }
        })
    }

    /// The first `length` bytes of the object `name` (fewer if it is
    /// shorter), or `None` if there is none.
    pub fn get_head(&self, name: &str, length: usize) -> Result<Option<Vec<u8>>, StoreError> {
        let key = self.key(name);
        self.retrying(&format!("GET {name}"), name, |_| {
            let result = self.runtime.block_on(async {
                let size = self.inner.head(&key).await?.size;
                self.inner.get_range(&key, 0..size.min(length as u64)).await
            });
            match result {
                Ok(bytes) => Ok(Some(bytes.to_vec())),
                Err(object_store::Error::NotFound { .. }) => Ok(None),
                Err(error) => Err(error),
            }
        })
    }

    /// Writes `bytes` as `name`, replacing what was there, atomically.
    pub fn put(&self, name: &str, bytes: Vec<u8>) -> Result<(), StoreError> {
        let key = self.key(name);
        let payload = PutPayload::from(bytes);
        self.retrying(&format!("PUT {name}"), name, |_| {
            self.runtime
                .block_on(self.inner.put(&key, payload.clone()))
                .map(|_| ())
        })
    }

    /// Writes `bytes` as `name` if no object has that name: `false` (and
    /// nothing written) if one has. After a try whose answer never came,
    /// an object of that name holding the same bytes is this write's own.
    pub fn create(&self, name: &str, bytes: Vec<u8>) -> Result<bool, StoreError> {
        let key = self.key(name);
        let payload = PutPayload::from(bytes.clone());
        self.retrying(&format!("PUT {name}"), name, |retried| {
            let options = PutOptions {
                mode: PutMode::Create,
                ..PutOptions::default()
            };
            match self
                .runtime
                .block_on(self.inner.put_opts(&key, payload.clone(), options))
            {
                Ok(_) => Ok(true),
                Err(object_store::Error::AlreadyExists { .. }) if retried => {
                    let found = self
                        .runtime
                        .block_on(async { self.inner.get(&key).await?.bytes().await })?;
                    Ok(found.as_ref() == bytes.as_slice())
                }
                Err(object_store::Error::AlreadyExists { .. }) => Ok(false),
                Err(error) => Err(error),
            }
        })
    }

    /// Removes `name` (nothing if absent).
    pub fn delete(&self, name: &str) -> Result<(), StoreError> {
        let key = self.key(name);
        self.retrying(&format!("DELETE {name}"), name, |_| {
            match self.runtime.block_on(self.inner.delete(&key)) {
                Ok(()) | Err(object_store::Error::NotFound { .. }) => Ok(()),
                Err(error) => Err(error),
            }
        })
    }

    /// The objects below `directory` (at any depth), by name.
    pub fn list(&self, directory: &str) -> Result<Vec<Listed>, StoreError> {
        let key = self.key(directory);
        let prefix = self.prefix.clone();
        let found: Vec<_> = self.retrying(&format!("LIST {directory}"), directory, |_| {
            self.runtime
                .block_on(self.inner.list(Some(&key)).try_collect::<Vec<_>>())
        })?;
        let mut listed: Vec<Listed> = found
            .into_iter()
            .filter_map(|meta| {
                let parts: Vec<_> = meta.location.prefix_match(&prefix)?.collect();
                let name = parts
                    .iter()
                    .map(|p| p.as_ref())
                    .collect::<Vec<&str>>()
                    .join("/");
                Some(Listed {
                    name,
                    size: meta.size,
                })
            })
            .collect();
        listed.sort_by(|a, b| a.name.cmp(&b.name));
        Ok(listed)
    }
}

/// The store a URL names, configured by `options` (the environment's
/// `AWS_*`, `GOOGLE_*`, `AZURE_*`). The client's own retries are off: every
/// failure reaches [`Store::retrying`], which retries for the store's
/// patience and says on stderr what it waits for (the client would retry
/// a read silently for up to 3 minutes, a write not at all).
fn cloud_store(
    url: &url::Url,
    options: impl IntoIterator<Item = (String, String)>,
) -> Result<(Box<dyn ObjectStore>, Key), object_store::Error> {
    #[cfg(feature = "cloud")]
    {
        use object_store::{ObjectStoreScheme, RetryConfig};
        let retry = RetryConfig {
            max_retries: 0,
            ..RetryConfig::default()
        };
        // Each builder reads the options it knows and ignores the others.
        macro_rules! built {
            ($builder:ty) => {{
                let builder = options.into_iter().fold(
                    <$builder>::new().with_url(url.to_string()),
                    |builder, (key, value)| match key.to_ascii_lowercase().parse() {
                        Ok(key) => builder.with_config(key, value),
                        Err(_) => builder,
                    },
                );
                Box::new(builder.with_retry(retry).build()?) as Box<dyn ObjectStore>
            }};
        }
        let (scheme, path) = ObjectStoreScheme::parse(url)?;
        let store = match scheme {
            ObjectStoreScheme::AmazonS3 => built!(object_store::aws::AmazonS3Builder),
            ObjectStoreScheme::GoogleCloudStorage => {
                built!(object_store::gcp::GoogleCloudStorageBuilder)
            }
            ObjectStoreScheme::MicrosoftAzure => {
                built!(object_store::azure::MicrosoftAzureBuilder)
            }
            _ => return object_store::parse_url_opts(url, options),
        };
        Ok((store, Key::parse(path)?))
    }
    #[cfg(not(feature = "cloud"))]
    object_store::parse_url_opts(url, options)
}

/// Whether a store's error could pass by itself: the server did not answer
/// (a timeout, a refused, reset or dropped connection) or answered that it
/// is overloaded or failing (5xx, throttling). Refusals (credentials,
/// missing buckets, invalid names, conflicts) cannot.
fn transient(error: &object_store::Error) -> bool {
    let object_store::Error::Generic { source, .. } = error else {
        return false;
    };
    let mut cause: Option<&(dyn std::error::Error + 'static)> = Some(source.as_ref());
    while let Some(error) = cause {
        #[cfg(feature = "cloud")]
        if let Some(http) = error.downcast_ref::<object_store::client::HttpError>() {
            use object_store::client::HttpErrorKind;
            return matches!(
                http.kind(),
                HttpErrorKind::Connect
                    | HttpErrorKind::Request
                    | HttpErrorKind::Timeout
                    | HttpErrorKind::Interrupted
                    | HttpErrorKind::Decode
            );
        }
        if let Some(io) = error.downcast_ref::<std::io::Error>() {
            use std::io::ErrorKind;
            return matches!(
                io.kind(),
                ErrorKind::TimedOut
                    | ErrorKind::ConnectionRefused
                    | ErrorKind::ConnectionReset
                    | ErrorKind::ConnectionAborted
                    | ErrorKind::NotConnected
                    | ErrorKind::BrokenPipe
                    | ErrorKind::Interrupted
                    | ErrorKind::UnexpectedEof
            );
        }
        cause = error.source();
    }
    // A server's answer: the client names its status in its message.
    let message = error.to_string();
    let status = message
        .split("status code: ")
        .nth(1)
        .and_then(|rest| rest.get(..3))
        .and_then(|code| code.parse::<u16>().ok());
    matches!(status, Some(429 | 500..=599))
        || [
            "SlowDown",
            "ServiceUnavailable",
            "InternalError",
            "RequestTimeout",
            "Throttl",
        ]
        .iter()
        .any(|word| message.contains(word))
}

#[cfg(test)]
#[path = "store_tests.rs"]
mod tests;
