//! Faults of the database under the real binary: a full disk (a small tmpfs holding
//! the SQLite file and the log) answers 503 problem+json, never 500, and recovers when space
//! returns with every accepted job done and the database intact; a corrupt or
//! read-only database file is a clear error at start; a database locked by another
//! process for a moment delays a write instead of failing it.
//!
//! Mounting needs root (CAP_SYS_ADMIN). Where the machine cannot mount, the tests that
//! need it print why and return; `scripts/soak.py` runs the longer fault cycles.

use crate::process;

use process::{free_port, Served};
use serde_json::{json, Value};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

/// A tmpfs of `size` mounted on a fresh folder, unmounted when dropped; `None` (with
/// the reason printed) where this machine cannot mount.
struct Tmpfs {
    path: PathBuf,
    _dir: tempfile::TempDir,
}

impl Tmpfs {
    fn mount(size: &str) -> Option<Tmpfs> {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("mnt");
        std::fs::create_dir(&path).unwrap();
        let out = Command::new("mount")
            .args(["-t", "tmpfs", "-o", &format!("size={size}"), "tmpfs"])
            .arg(&path)
            .output();
        match out {
            Ok(out) if out.status.success() => Some(Tmpfs { path, _dir: dir }),
            Ok(out) => {
                eprintln!(
                    "skipped: this machine cannot mount a tmpfs ({})",
                    String::from_utf8_lossy(&out.stderr).trim()
                );
                None
            }
            Err(e) => {
                eprintln!("skipped: no mount command ({e})");
                None
            }
        }
    }

    fn remount(&self, options: &str) {
        let status = Command::new("mount")
            .args(["-o", &format!("remount,{options}")])
            .arg(&self.path)
            .status()
            .unwrap();
        assert!(status.success(), "remount {options}");
    }
}

impl Drop for Tmpfs {
    fn drop(&mut self) {
        let _ = Command::new("umount").arg(&self.path).status();
    }
}

fn env() -> Vec<(&'static str, &'static str)> {
    vec![
        ("GAPS_SOLVER__THREADS", "1"),
        ("GAPS_SOLVER__TABLE_MB", "8"),
        ("GAPS_DEEPEN__ENABLED", "false"),
        ("GAPS_LOG__FILTER", "error"),
    ]
}

/// `POST /v1/jobs` for deal `seed` (4 x 5, solved in microseconds): status and body.
fn post_deal(base: &str, seed: u64) -> (u16, Value) {
    let body = json!({"deal": {"seed": seed, "suits": 4, "ranks": 5}});
    match ureq::post(&format!("{base}/v1/jobs")).send_json(body) {
        Ok(r) => (r.status(), r.into_json().unwrap()),
        Err(ureq::Error::Status(code, r)) => {
            let content_type = r.content_type().to_string();
            assert_eq!(content_type, "application/problem+json", "{code}");
            (code, r.into_json().unwrap())
        }
        Err(e) => panic!("transport error: {e}"),
    }
}

/// Every job in `ids` once all are final (at most `limit`), as read back.
fn wait_done(served: &Served, ids: &[String], limit: Duration) -> Vec<Value> {
    let began = Instant::now();
    loop {
        let jobs: Vec<Value> = ids
            .iter()
            .map(|id| served.get(&format!("/v1/jobs/{id}")))
            .collect();
        if jobs.iter().all(|j| j["state"] == "done") {
            return jobs;
        }
        let undone: Vec<&Value> = jobs.iter().filter(|j| j["state"] != "done").collect();
        assert!(
            began.elapsed() < limit,
            "not all accepted jobs done after {limit:?}: {} are not, the first {}",
            undone.len(),
            undone[0]
        );
        std::thread::sleep(Duration::from_millis(200));
    }
}

fn integrity(db: &Path) -> String {
    let out = Command::new("python3")
        .args([
            "-c",
            "import sqlite3,sys; print(sqlite3.connect(sys.argv[1]).execute('PRAGMA integrity_check').fetchone()[0])",
        ])
        .arg(db)
        .output()
        .unwrap();
    String::from_utf8_lossy(&out.stdout).trim().to_string()
}

#[test]
fn a_full_disk_answers_503_and_recovers_with_nothing_accepted_lost() {
    let Some(disk) = Tmpfs::mount("3m") else {
        return;
    };
    let db = disk.path.join("gaps.db");
    // The log goes to the same disk, as it may in production: a log line that cannot
    // be written must not cost a request.
    // (Errors only: the file stays empty until the disk is full, so that the first
    // 503's log line cannot be written, not even into a page already allocated.)
    let log = std::fs::File::create(disk.path.join("server.log")).unwrap();
    let mut served = Served::start_logging_to(
        &format!("sqlite://{}", db.display()),
        free_port(),
        &env(),
        log.into(),
    );
    let mut accepted = Vec::new();
    for seed in 0..20 {
        let (status, job) = post_deal(&served.base, seed);
        assert_eq!(status, 202);
        accepted.push(job["id"].as_str().unwrap().to_string());
    }
    // Fill the disk.
    let filler = disk.path.join("filler");
    {
        use std::io::Write;
        let mut file = std::fs::File::create(&filler).unwrap();
        let block = vec![0u8; 16 << 10];
        while file.write_all(&block).is_ok() {}
        let _ = file.flush();
    }
    let mut refused = 0;
    for seed in 1000..6000 {
        let (status, job) = post_deal(&served.base, seed);
        match status {
            202 => accepted.push(job["id"].as_str().unwrap().to_string()),
            503 => {
                refused += 1;
                assert!(!job["detail"].as_str().unwrap().contains(".db"), "no paths");
                if refused == 5 {
                    break;
                }
            }
            other => panic!("a full disk answered {other}: {job}"),
        }
    }
    assert_eq!(refused, 5, "a full disk never refused a job");
    // Space returns: the service takes jobs again and finishes every accepted one.
    std::fs::remove_file(&filler).unwrap();
    let began = Instant::now();
    loop {
        let (status, job) = post_deal(&served.base, 9000);
        if status == 202 {
            accepted.push(job["id"].as_str().unwrap().to_string());
            break;
        }
        assert!(
            began.elapsed() < Duration::from_secs(20),
            "no recovery: {job}"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
    let jobs = wait_done(&served, &accepted, Duration::from_secs(120));
    assert!(jobs.iter().all(|j| j["verdict"].is_string()));
    assert_eq!(served.terminate().code(), Some(0));
    assert_eq!(integrity(&db), "ok");
}

#[test]
fn a_corrupt_database_file_is_a_clear_error_at_start() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("gaps.db");
    std::fs::write(&db, vec![0x5a; 64 << 10]).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_gaps"))
        .args(["serve", "--listen", &format!("127.0.0.1:{}", free_port())])
        .args(["--database", &format!("sqlite://{}", db.display())])
        .env("GAPS_SOLVER__THREADS", "0")
        .output()
        .unwrap();
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("not a database"), "{stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
}

#[test]
fn a_read_only_database_is_a_clear_error_at_start() {
    let Some(disk) = Tmpfs::mount("8m") else {
        return;
    };
    let db = disk.path.join("gaps.db");
    let database = format!("sqlite://{}", db.display());
    let mut served = Served::start(&database, free_port(), &env());
    assert_eq!(served.terminate().code(), Some(0));
    disk.remount("ro");
    let out = Command::new(env!("CARGO_BIN_EXE_gaps"))
        .args(["serve", "--listen", &format!("127.0.0.1:{}", free_port())])
        .args(["--database", &database])
        .env("GAPS_SOLVER__THREADS", "0")
        .output()
        .unwrap();
    disk.remount("rw");
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.to_lowercase().contains("read-only") || stderr.contains("readonly"),
        "{stderr}"
    );
    assert!(!stderr.contains("panicked"), "{stderr}");
}

#[test]
fn a_database_locked_for_a_moment_delays_a_write_instead_of_failing_it() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("gaps.db");
    let served = Served::start(&format!("sqlite://{}", db.display()), free_port(), &env());
    // Another process holds the write lock for 2 s.
    let mut locker = Command::new("python3")
        .args([
            "-c",
            "import sqlite3,sys,time; c=sqlite3.connect(sys.argv[1], isolation_level=None); \
             c.execute('BEGIN IMMEDIATE'); print('locked', flush=True); time.sleep(2); c.execute('COMMIT')",
        ])
        .arg(&db)
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    {
        use std::io::BufRead;
        let mut line = String::new();
        std::io::BufReader::new(locker.stdout.as_mut().unwrap())
            .read_line(&mut line)
            .unwrap();
        assert_eq!(line.trim(), "locked");
    }
    let began = Instant::now();
    let (status, job) = post_deal(&served.base, 7);
    assert_eq!(status, 202, "{job}");
    assert!(
        began.elapsed() >= Duration::from_millis(500),
        "the lock was held"
    );
    locker.wait().unwrap();
    wait_done(
        &served,
        &[job["id"].as_str().unwrap().to_string()],
        Duration::from_secs(30),
    );
}
