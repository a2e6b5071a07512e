//! The host side of file ports: [`FileTable`], the program's open files, by
//! the index a file port holds (`scm-port` word 3; see `crate::types::io`).
//!
//! A file is closed by `close-port` (and its variants), by the end of the
//! program (the table is flushed then, and every file is closed when the
//! table is dropped), or when a collection finds its port unreachable: each
//! file port is registered with a cleaner in [`FileTable::dead`] whose token is
//! its index, and the next file open, `close-port` or flush drops the files of
//! the ports reported dead ([`FileTable::reap`]) after flushing them. A file
//! written by a port the program forgot is therefore complete once the program
//! ends, or after the next collection and file operation.

use flipgc_core::{FinalizerQueue, Heap};
use std::fs::File;
use std::io::{BufWriter, Read, Write};

/// One open file.
pub enum HostFile {
    /// Read by an input port (in chunks, into the port's heap buffer).
    Read(File),
    /// Written by an output port, through a host buffer flushed at
    /// `flush-output-port`, at close and at the end of the program.
    Write(BufWriter<File>),
}

/// The program's open files, by index.
pub struct FileTable {
    /// Files by index (`None`: free).
    files: Vec<Option<HostFile>>,
    /// Free indices.
    free: Vec<usize>,
    /// Cleaner tokens (file indices) of file ports found unreachable.
    pub dead: FinalizerQueue,
}

/// Bytes a file input port reads from its file at a time.
pub const CHUNK: usize = 64 << 10;

impl FileTable {
    /// An empty table for a program on `heap`.
    pub fn new(heap: &Heap) -> FileTable {
        FileTable {
            files: Vec::new(),
            free: Vec::new(),
            dead: heap.finalizer_queue(),
        }
    }

    /// Adds `f`; its index.
    pub fn add(&mut self, f: HostFile) -> usize {
        match self.free.pop() {
            Some(i) => {
                self.files[i] = Some(f);
                i
            }
            None => {
                self.files.push(Some(f));
                self.files.len() - 1
            }
        }
    }

    /// Flushes and closes file `i` (nothing if it is closed already).
    pub fn close(&mut self, i: usize) -> std::io::Result<()> {
        let Some(f) = self.files.get_mut(i).and_then(Option::take) else {
            return Ok(());
        };
        self.free.push(i);
        match f {
            HostFile::Read(_) => Ok(()),
            HostFile::Write(mut w) => w.flush(),
        }
    }

    /// Closes the files of the ports a collection found unreachable.
    pub fn reap(&mut self) {
        while let Some(i) = self.dead.poll_token() {
            let _ = self.close(i as usize);
        }
    }

    /// Reads up to [`CHUNK`] bytes of file `i` (an empty vector at its end).
    pub fn read_chunk(&mut self, i: usize) -> std::io::Result<Vec<u8>> {
        let Some(Some(HostFile::Read(f))) = self.files.get_mut(i) else {
            return Ok(Vec::new());
        };
        let mut buf = vec![0; CHUNK];
        let n = loop {
            match f.read(&mut buf) {
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                r => break r?,
            }
        };
        buf.truncate(n);
        Ok(buf)
    }

    /// Writes `bytes` to file `i`.
    pub fn write(&mut self, i: usize, bytes: &[u8]) -> std::io::Result<()> {
        match self.files.get_mut(i) {
            Some(Some(HostFile::Write(w))) => w.write_all(bytes),
            _ => Ok(()),
        }
    }

    /// Flushes file `i`'s host buffer.
    pub fn flush(&mut self, i: usize) -> std::io::Result<()> {
        match self.files.get_mut(i) {
            Some(Some(HostFile::Write(w))) => w.flush(),
            _ => Ok(()),
        }
    }

    /// Flushes every file being written (at the end of the program), and closes
    /// those of dead ports.
    pub fn flush_all(&mut self) {
        self.reap();
        for f in self.files.iter_mut().flatten() {
            if let HostFile::Write(w) = f {
                let _ = w.flush();
            }
        }
    }
}
