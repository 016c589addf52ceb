//! Writing files so that a reader never sees half of one.

use std::fs;
use std::io::{self, Write};
use std::path::{Path, PathBuf};

/// Writes `bytes` to `path` through a temporary file beside it (flushed to
/// disk, then renamed over `path`): after a crash the file holds either its
/// old contents or the new ones.
pub fn write_atomically(path: &Path, bytes: &[u8]) -> io::Result<()> {
    write_with(path, ".tmp", |staging| {
        let mut file = fs::File::create(staging)?;
        file.write_all(bytes)?;
        file.sync_all()
    })
}

/// Has `write` create the file's new contents at a staging path beside
/// `path` (`path` with `suffix` appended to its name: a writer that picks
/// its format from the extension gets one), then renames it over `path`;
/// the staging file is removed if anything fails. The one way this
/// program replaces a file.
pub fn write_with<E: From<io::Error>>(
    path: &Path,
    suffix: &str,
    write: impl FnOnce(&Path) -> Result<(), E>,
) -> Result<(), E> {
    let staging = staging_path(path, suffix);
    let result = write(&staging).and_then(|()| Ok(fs::rename(&staging, path)?));
    if result.is_err() {
        let _ = fs::remove_file(&staging);
    }
    result
}

/// `path` with `suffix` appended to its file name.
fn staging_path(path: &Path, suffix: &str) -> PathBuf {
    let mut name = path
        .file_name()
        .map(|n| n.to_os_string())
        .unwrap_or_default();
    name.push(suffix);
    path.with_file_name(name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_file_holds_the_new_bytes_and_no_staging_file_is_left() {
        let directory = std::env::temp_dir().join(format!("gm-files-{}", std::process::id()));
        fs::create_dir_all(&directory).expect("temp dir");
        let path = directory.join("model.json");
        write_atomically(&path, b"old").expect("first write");
        write_atomically(&path, b"new").expect("second write");
        assert_eq!(fs::read(&path).expect("read back"), b"new");
        let names: Vec<_> = fs::read_dir(&directory)
            .expect("list")
            .map(|e| e.expect("entry").file_name())
            .collect();
        assert_eq!(names, vec![std::ffi::OsString::from("model.json")]);
        fs::remove_dir_all(&directory).expect("clean up");
    }

    #[test]
    fn a_failed_write_reports_the_error() {
        let path = Path::new("/nonexistent-directory-of-grandmaitre/x.json");
        assert!(write_atomically(path, b"x").is_err());
    }
}
