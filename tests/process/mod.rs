//! Shared by the end-to-end tests: the real `gaps` binary as a child process on a free
//! port, with JSON over HTTP and signals.

use serde_json::Value;
use std::net::TcpListener;
use std::process::{Child, Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

/// A port free now (the child binds it a moment later).
pub fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// `gaps serve` on `127.0.0.1:port` with `database` and the environment `env`; killed
/// when dropped, so a failing test leaves no server behind.
pub struct Served {
    pub child: Child,
    pub base: String,
    pub port: u16,
}

impl Served {
    /// Starts the service and waits until `/healthz` answers.
    pub fn start(database: &str, port: u16, env: &[(&str, &str)]) -> Served {
        Served::start_logging_to(database, port, env, Stdio::inherit())
    }

    /// [`Served::start`] with the service's log (stderr) going to `log`.
    pub fn start_logging_to(database: &str, port: u16, env: &[(&str, &str)], log: Stdio) -> Served {
        let mut command = Command::new(env!("CARGO_BIN_EXE_gaps"));
        command
            .args(["serve", "--listen", &format!("127.0.0.1:{port}")])
            .args(["--database", database])
            .stdout(Stdio::null())
            .stderr(log);
        for (key, value) in env {
            command.env(key, value);
        }
        let served = Served {
            child: command.spawn().expect("the binary starts"),
            base: format!("http://127.0.0.1:{port}"),
            port,
        };
        let began = Instant::now();
        while began.elapsed() < Duration::from_secs(30) {
            if ureq::get(&format!("{}/healthz", served.base))
                .call()
                .is_ok()
            {
                return served;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        panic!("the service did not become healthy"); // Drop kills the child.
    }

    pub fn post(&self, path: &str, body: Value) -> Value {
        ureq::post(&format!("{}{path}", self.base))
            .send_json(body)
            .expect("accepted")
            .into_json()
            .unwrap()
    }

    pub fn get(&self, path: &str) -> Value {
        ureq::get(&format!("{}{path}", self.base))
            .call()
            .expect("found")
            .into_json()
            .unwrap()
    }

    pub fn text(&self, path: &str) -> String {
        ureq::get(&format!("{}{path}", self.base))
            .call()
            .expect("found")
            .into_string()
            .unwrap()
    }

    /// The body of `GET path` asking for CSV.
    pub fn text_csv(&self, path: &str) -> String {
        ureq::get(&format!("{}{path}", self.base))
            .set("accept", "text/csv")
            .call()
            .expect("found")
            .into_string()
            .unwrap()
    }

    /// Sends signal `name` (`TERM`, `STOP`, `CONT`, ...).
    pub fn signal(&self, name: &str) {
        Command::new("kill")
            .args([format!("-{name}"), self.child.id().to_string()])
            .status()
            .unwrap();
    }

    /// SIGTERM, then waits (at most 15 s) for the exit.
    pub fn terminate(&mut self) -> ExitStatus {
        self.signal("TERM");
        let began = Instant::now();
        loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                return status;
            }
            assert!(
                began.elapsed() < Duration::from_secs(15),
                "SIGTERM did not stop the service"
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// SIGKILL, as `kill -9`.
    pub fn kill_hard(&mut self) {
        self.child.kill().unwrap();
        self.child.wait().unwrap();
    }
}

impl Drop for Served {
    fn drop(&mut self) {
        // A paused child must be resumed to die cleanly.
        let _ = Command::new("kill")
            .args(["-CONT".to_string(), self.child.id().to_string()])
            .status();
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
