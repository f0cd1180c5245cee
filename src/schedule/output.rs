//! Output files: where results land, checked before any work is done, and
//! written so that a failed command leaves nothing behind.
//!
//! A command first [`prepare`]s every output path it was given (so a bad
//! path fails in milliseconds, before a long solve, and before any other
//! output exists), then writes each, then commits them all. The rules:
//!
//! - `-` is stdout, written in place.
//! - A symlink is followed to its final target; the link itself stays.
//! - A target that is a regular file, or does not exist yet, is written to
//!   a temporary sibling `.tickopt-<pid>-XXXXXX.tmp` in the target's
//!   directory, fsynced, and renamed over the target on commit. Dropping an
//!   uncommitted [`OutputFile`] removes its temporary file.
//! - A FIFO or a character device (`/dev/null`, `/dev/stdout`, a terminal)
//!   is opened and written in place: renaming a file over it would replace
//!   the device node.
//! - Directories, block devices, sockets and a path ending in `/` are
//!   refused; so are two outputs that resolve to the same file (except a
//!   character device such as `/dev/null`, which takes any number).
//!
//! Temporary files are registered while they exist; the first one installs
//! a SIGINT/SIGTERM/SIGHUP handler (`signal-hook`: a thread receives the
//! signal, so the clean-up runs outside the async-signal context) that
//! removes them and then lets the signal take its default course (the
//! process dies of it, as it would have without the handler). SIGKILL
//! cannot be caught: doc/formats.md ("Outputs") describes the sweep of
//! stale `.tickopt-*.tmp` files, whose names carry the writer's PID.

use std::fs::{self, File, OpenOptions};
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::{Mutex, MutexGuard, Once};

/// Why an output path cannot be written.
#[derive(Debug, thiserror::Error)]
pub enum OutputError {
    #[error("cannot write {path}: it is a directory")]
    IsDirectory { path: String },
    #[error("cannot write {path}: directory {dir} does not exist")]
    NoDirectory { path: String, dir: String },
    #[error("cannot write {path}: it is a {kind}; outputs can be regular files, FIFOs or character devices")]
    Unsupported { path: String, kind: &'static str },
    #[error("cannot write {path}: too many levels of symbolic links")]
    SymlinkLoop { path: String },
    #[error("{first} and {second} are the same file; give each output its own path")]
    SameFile { first: String, second: String },
    #[error("cannot write {path}: {source}")]
    Io { path: String, source: io::Error },
}

fn io_error(path: &Path, source: io::Error) -> OutputError {
    OutputError::Io {
        path: path.display().to_string(),
        source,
    }
}

/// Where an [`OutputFile`] goes.
enum Target {
    Stdout,
    /// A FIFO or character device, opened at write time.
    InPlace(PathBuf),
    /// A regular file (or a new one): a registered temporary file, renamed
    /// onto `dest` by [`OutputFile::commit`].
    Atomic {
        dest: PathBuf,
        tmp: Option<TempFile>,
    },
}

/// One prepared output: see the module docs.
pub struct OutputFile {
    /// The path as the user gave it (for messages).
    shown: String,
    /// What identifies the final target, to refuse two outputs on one file.
    identity: Identity,
    target: Target,
    /// A character device: several outputs may share it.
    shareable: bool,
}

#[derive(PartialEq, Eq, Debug)]
enum Identity {
    Stdout,
    /// The target exists: device and inode.
    Node(u64, u64),
    /// The target does not exist yet: canonical directory + file name.
    NewPath(PathBuf),
}

/// Prepares one output path (see the module docs). For regular targets
/// this creates the temporary file, which proves the directory writable.
pub fn prepare(path: &Path) -> Result<OutputFile, OutputError> {
    let shown = path.display().to_string();
    if path == Path::new("-") {
        return Ok(OutputFile {
            shown: "<stdout>".into(),
            identity: Identity::Stdout,
            target: Target::Stdout,
            shareable: false,
        });
    }
    // `metadata` follows symlinks the way `open` does (also /proc magic
    // links such as /dev/stdout); the textual resolution is only needed
    // where a temporary file must be renamed onto the final target.
    match fs::metadata(path) {
        Ok(meta) => {
            let identity = node_identity(&meta);
            let ft = meta.file_type();
            if ft.is_dir() {
                return Err(OutputError::IsDirectory { path: shown });
            }
            if ft.is_file() {
                if ends_with_slash(path) {
                    return Err(OutputError::IsDirectory { path: shown });
                }
                let dest = resolve_symlinks(path)?;
                let dir = parent_dir(&dest);
                let tmp = TempFile::new(dir).map_err(|e| io_error(dir, e))?;
                // Keep the mode of the file being replaced.
                let _ = tmp.file().set_permissions(meta.permissions());
                return Ok(OutputFile {
                    shown,
                    identity,
                    target: Target::Atomic {
                        dest,
                        tmp: Some(tmp),
                    },
                    shareable: false,
                });
            }
            if let Some(kind) = unsupported_kind(&ft) {
                return Err(OutputError::Unsupported { path: shown, kind });
            }
            Ok(OutputFile {
                shown,
                identity,
                target: Target::InPlace(path.to_path_buf()),
                shareable: is_char_device(&ft),
            })
        }
        Err(e) if e.kind() == io::ErrorKind::NotFound => {
            let dest = resolve_symlinks(path)?;
            if ends_with_slash(path) || dest.file_name().is_none() {
                return Err(OutputError::IsDirectory { path: shown });
            }
            let dir = parent_dir(&dest);
            if !dir.is_dir() {
                return Err(OutputError::NoDirectory {
                    path: shown,
                    dir: dir.display().to_string(),
                });
            }
            let canon_dir = fs::canonicalize(dir).map_err(|e| io_error(dir, e))?;
            let identity = Identity::NewPath(canon_dir.join(dest.file_name().unwrap_or_default()));
            let tmp = TempFile::new(dir).map_err(|e| io_error(dir, e))?;
            Ok(OutputFile {
                shown,
                identity,
                target: Target::Atomic {
                    dest,
                    tmp: Some(tmp),
                },
                shareable: false,
            })
        }
        Err(e) => Err(io_error(path, e)),
    }
}

/// Prepares several outputs at once, refusing two that are the same file
/// (after following symlinks). On error nothing is left behind.
pub fn prepare_all(paths: &[&Path]) -> Result<Vec<OutputFile>, OutputError> {
    let mut outs: Vec<OutputFile> = Vec::with_capacity(paths.len());
    for p in paths {
        let o = prepare(p)?;
        let clash = outs
            .iter()
            .find(|q| q.identity == o.identity && !(q.shareable && o.shareable));
        if let Some(prev) = clash {
            return Err(OutputError::SameFile {
                first: prev.shown.clone(),
                second: o.shown,
            });
        }
        outs.push(o);
    }
    Ok(outs)
}

impl OutputFile {
    /// The path as given (`<stdout>` for `-`), for messages.
    pub fn shown(&self) -> &str {
        &self.shown
    }

    /// Whether this output is stdout.
    pub fn is_stdout(&self) -> bool {
        matches!(self.target, Target::Stdout)
    }

    /// Writes the content through `f`: into the temporary file (visible
    /// only after [`commit`](Self::commit)), or straight to stdout or the
    /// special file. Buffered and flushed here.
    pub fn write(&mut self, f: impl FnOnce(&mut dyn Write) -> io::Result<()>) -> io::Result<()> {
        match &mut self.target {
            Target::Stdout => {
                let stdout = io::stdout();
                let mut w = io::BufWriter::with_capacity(1 << 16, stdout.lock());
                f(&mut w)?;
                w.flush()
            }
            Target::InPlace(p) => {
                let file = OpenOptions::new().write(true).open(&*p)?;
                let mut w = io::BufWriter::with_capacity(1 << 16, file);
                f(&mut w)?;
                w.flush()
            }
            Target::Atomic { tmp, .. } => {
                let tmp = tmp
                    .as_mut()
                    .ok_or_else(|| io::Error::other("output already committed"))?;
                let mut w = io::BufWriter::with_capacity(1 << 16, tmp.file());
                f(&mut w)?;
                w.flush()?;
                tmp.file().sync_all()
            }
        }
    }

    /// Makes a regular-file output visible under its name (rename of the
    /// temporary file); nothing to do for stdout and special files.
    pub fn commit(mut self) -> io::Result<()> {
        if let Target::Atomic { dest, tmp } = &mut self.target {
            if let Some(t) = tmp.take() {
                t.persist(dest)?;
            }
        }
        Ok(())
    }
}

/// Writes a file through `f`: prepared, written and committed in one go
/// (see the module docs for what "atomically" means for each kind of target).
pub fn write_atomically(
    path: &Path,
    f: impl FnOnce(&mut dyn Write) -> io::Result<()>,
) -> io::Result<()> {
    let mut out = prepare(path).map_err(|e| match e {
        OutputError::Io { source, .. } => source,
        other => io::Error::other(other.to_string()),
    })?;
    out.write(f)?;
    out.commit()
}

fn ends_with_slash(path: &Path) -> bool {
    path.as_os_str().as_encoded_bytes().last() == Some(&b'/')
}

fn parent_dir(path: &Path) -> &Path {
    match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    }
}

/// Follows symlinks from `path` to the final target (which need not exist).
fn resolve_symlinks(path: &Path) -> Result<PathBuf, OutputError> {
    let mut p = path.to_path_buf();
    for _ in 0..40 {
        match fs::symlink_metadata(&p) {
            Ok(m) if m.file_type().is_symlink() => {
                let t = fs::read_link(&p).map_err(|e| io_error(path, e))?;
                p = if t.is_absolute() {
                    t
                } else {
                    parent_dir(&p).join(t)
                };
            }
            Ok(_) => return Ok(p),
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(p),
            Err(e) => return Err(io_error(path, e)),
        }
    }
    Err(OutputError::SymlinkLoop {
        path: path.display().to_string(),
    })
}

#[cfg(unix)]
fn node_identity(meta: &fs::Metadata) -> Identity {
    use std::os::unix::fs::MetadataExt;
    Identity::Node(meta.dev(), meta.ino())
}

#[cfg(not(unix))]
fn node_identity(_meta: &fs::Metadata) -> Identity {
    Identity::NewPath(PathBuf::new())
}

/// `None` for the special files written in place, else what the file is.
#[cfg(unix)]
fn unsupported_kind(ft: &fs::FileType) -> Option<&'static str> {
    use std::os::unix::fs::FileTypeExt;
    if ft.is_fifo() || ft.is_char_device() {
        None
    } else if ft.is_block_device() {
        Some("block device")
    } else if ft.is_socket() {
        Some("socket")
    } else {
        Some("special file")
    }
}

#[cfg(unix)]
fn is_char_device(ft: &fs::FileType) -> bool {
    use std::os::unix::fs::FileTypeExt;
    ft.is_char_device()
}

#[cfg(not(unix))]
fn is_char_device(_ft: &fs::FileType) -> bool {
    false
}

#[cfg(not(unix))]
fn unsupported_kind(_ft: &fs::FileType) -> Option<&'static str> {
    Some("special file")
}

/// Temporary files alive in this process, removed by the signal handler.
static LIVE_TEMPS: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());

fn live_temps() -> MutexGuard<'static, Vec<PathBuf>> {
    LIVE_TEMPS.lock().unwrap_or_else(|e| e.into_inner())
}

/// A registered temporary file: removed on drop, on SIGINT/SIGTERM/SIGHUP,
/// or renamed by [`TempFile::persist`].
struct TempFile {
    inner: Option<tempfile::NamedTempFile>,
    path: PathBuf,
}

impl TempFile {
    fn new(dir: &Path) -> io::Result<TempFile> {
        install_signal_cleanup();
        let mut builder = tempfile::Builder::new();
        let prefix = format!(".tickopt-{}-", std::process::id());
        builder.prefix(&prefix).suffix(".tmp");
        // Temporary files are private (0600) by default; the result is an
        // ordinary output file (0644 before the umask).
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            builder.permissions(fs::Permissions::from_mode(0o644));
        }
        // Create and register under the lock, so the signal handler (which
        // holds it until the process dies) never misses a file.
        let mut live = live_temps();
        let tmp = builder.tempfile_in(dir)?;
        let path = tmp.path().to_path_buf();
        live.push(path.clone());
        Ok(TempFile {
            inner: Some(tmp),
            path,
        })
    }

    fn file(&self) -> &File {
        self.inner.as_ref().expect("live temporary file").as_file()
    }

    fn persist(mut self, dest: &Path) -> io::Result<()> {
        let tmp = self.inner.take().expect("live temporary file");
        let mut live = live_temps();
        let r = tmp.persist(dest).map_err(|e| e.error);
        // On failure the temporary file was dropped (removed) by `persist`'s error.
        live.retain(|p| p != &self.path);
        r.map(|_| ())
    }
}

impl Drop for TempFile {
    fn drop(&mut self) {
        if let Some(tmp) = self.inner.take() {
            let mut live = live_temps();
            drop(tmp);
            live.retain(|p| p != &self.path);
        }
    }
}

/// Installs (once) the handler that removes live temporary files on
/// SIGINT, SIGTERM and SIGHUP, then lets the signal kill the process.
fn install_signal_cleanup() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        #[cfg(unix)]
        {
            use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};
            let Ok(mut signals) = signal_hook::iterator::Signals::new([SIGINT, SIGTERM, SIGHUP])
            else {
                return;
            };
            let _ = std::thread::Builder::new()
                .name("tickopt-signals".into())
                .spawn(move || {
                    if let Some(sig) = signals.forever().next() {
                        // Hold the lock until the end: no new temporary file appears.
                        let live = live_temps();
                        for p in live.iter() {
                            let _ = fs::remove_file(p);
                        }
                        let _ = signal_hook::low_level::emulate_default_handler(sig);
                        std::process::exit(128 + sig);
                    }
                });
        }
    });
}
