//! What the machine offers the solvers: its physical memory, and the share of it that
//! searches may use when nobody says how much.
//!
//! Invariant: read from `/proc/meminfo` (Linux) once per process, so asking again (each
//! request's validation does) costs no I/O; where it cannot be read the machine's
//! memory is unknown and callers fall back to [`UNKNOWN_MACHINE_BYTES`].

use std::sync::OnceLock;

/// The share of the machine's physical memory that searches may use by default: half,
/// leaving the rest to the operating system, the page cache, the database and other
/// programs.
pub const DEFAULT_SHARE_DIVISOR: u64 = 2;

/// The memory assumed when the machine's cannot be read: 4 GiB.
pub const UNKNOWN_MACHINE_BYTES: u64 = 4 << 30;

/// Physical memory of this machine in bytes (`MemTotal`), if known.
pub fn physical_memory_bytes() -> Option<u64> {
    static TOTAL: OnceLock<Option<u64>> = OnceLock::new();
    *TOTAL.get_or_init(|| {
        let info = std::fs::read_to_string("/proc/meminfo").ok()?;
        parse_mem_total(&info)
    })
}

/// `MemTotal` of a `/proc/meminfo` text, in bytes.
fn parse_mem_total(info: &str) -> Option<u64> {
    let line = info.lines().find(|l| l.starts_with("MemTotal:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    kib.checked_mul(1024)
}

/// The memory searches may use by default: [`DEFAULT_SHARE_DIVISOR`]'s share of the
/// physical memory (of [`UNKNOWN_MACHINE_BYTES`] when unknown).
pub fn default_search_memory_bytes() -> u64 {
    physical_memory_bytes().unwrap_or(UNKNOWN_MACHINE_BYTES) / DEFAULT_SHARE_DIVISOR
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mem_total_is_read_in_kib_and_anything_else_is_unknown() {
        let info = "MemTotal:       24576000 kB\nMemFree:         1000 kB\n";
        assert_eq!(parse_mem_total(info), Some(24_576_000 * 1024));
        assert_eq!(parse_mem_total("MemFree: 1 kB\n"), None);
        assert_eq!(parse_mem_total("MemTotal: lots kB\n"), None);
        // This machine (the tests run on Linux): some memory, and half of it by default.
        let total = physical_memory_bytes().expect("/proc/meminfo");
        assert!(total > 0);
        assert_eq!(default_search_memory_bytes(), total / 2);
    }
}
