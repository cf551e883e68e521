//! Where the exact search's visited set goes when it outgrows its memory: a scratch
//! file for each solver, the engine's [`SpillStore`] on disk.
//!
//! Invariants: the file is created in the directory given and unlinked at once, so it
//! has no name, no other process can open it and the system takes it back when the
//! store is dropped (or the process dies, `kill -9` included); one search at a time
//! writes it (the engine's contract), appends go at the end the store counts, reads
//! are positional, and `clear` truncates it to nothing.

use gaps_engine::{SpillError, SpillStore};
use std::fs::{File, OpenOptions};
use std::os::unix::fs::FileExt;
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

/// A scratch file holding a visited set's spilled keys.
#[derive(Debug)]
pub struct FileStore {
    file: File,
    len: AtomicU64,
}

impl FileStore {
    /// A new, empty, nameless scratch file in `dir`.
    pub fn create_in(dir: &Path) -> std::io::Result<FileStore> {
        static NEXT: AtomicU64 = AtomicU64::new(0);
        let name = dir.join(format!(
            ".gaps-spill-{}-{}",
            std::process::id(),
            NEXT.fetch_add(1, Ordering::Relaxed)
        ));
        let file = OpenOptions::new()
            .read(true)
            .write(true)
            .create_new(true)
            .open(&name)?;
        std::fs::remove_file(&name)?;
        Ok(FileStore {
            file,
            len: AtomicU64::new(0),
        })
    }

    /// [`FileStore::create_in`] as the engine's shared store, or `None` without a
    /// directory; a directory where no file can be made is an error naming it.
    pub fn for_solver(dir: Option<&Path>) -> Result<Option<Arc<dyn SpillStore>>, String> {
        let Some(dir) = dir else { return Ok(None) };
        match FileStore::create_in(dir) {
            Ok(store) => Ok(Some(Arc::new(store))),
            Err(e) => Err(format!(
                "cannot make a spill file in {}: {e}",
                dir.display()
            )),
        }
    }
}

fn failed(what: &str, e: std::io::Error) -> SpillError {
    SpillError(format!("{what}: {e}"))
}

impl SpillStore for FileStore {
    fn append(&self, bytes: &[u8]) -> Result<u64, SpillError> {
        let offset = self.len.load(Ordering::Acquire);
        self.file
            .write_all_at(bytes, offset)
            .map_err(|e| failed("write", e))?;
        self.len
            .store(offset + bytes.len() as u64, Ordering::Release);
        Ok(offset)
    }

    fn read(&self, offset: u64, buf: &mut [u8]) -> Result<(), SpillError> {
        if offset + buf.len() as u64 > self.len.load(Ordering::Acquire) {
            return Err(SpillError(format!("read past the end at {offset}")));
        }
        self.file
            .read_exact_at(buf, offset)
            .map_err(|e| failed("read", e))
    }

    fn clear(&self) -> Result<(), SpillError> {
        self.file.set_len(0).map_err(|e| failed("truncate", e))?;
        self.len.store(0, Ordering::Release);
        Ok(())
    }

    fn len(&self) -> u64 {
        self.len.load(Ordering::Acquire)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bytes_written_read_back_and_cleared() {
        let dir = tempfile::tempdir().unwrap();
        let store = FileStore::create_in(dir.path()).unwrap();
        // Nameless: nothing left in the directory.
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
        assert_eq!(store.append(b"abcdef").unwrap(), 0);
        assert_eq!(store.append(b"gh").unwrap(), 6);
        let mut buf = [0u8; 4];
        store.read(3, &mut buf).unwrap();
        assert_eq!(&buf, b"defg");
        assert!(store.read(6, &mut buf).is_err());
        store.clear().unwrap();
        assert!(store.is_empty() && store.read(0, &mut buf[..1]).is_err());
        assert!(FileStore::for_solver(Some(&dir.path().join("absent"))).is_err());
        assert!(FileStore::for_solver(None).unwrap().is_none());
    }
}
