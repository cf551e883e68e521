//! The limits a solve accepts, each declared once: its range, and the rules that tie a
//! limit to the algorithms it applies to. The CLI, the HTTP validation and the OpenAPI
//! document all read them from here; a front end may narrow a range from its own
//! configuration (a service's caps), never widen it.
//!
//! Invariant: without probes, [`check_request`] accepts exactly the requests that
//! [`super::solver::Solver::solve`] carries out without a [`super::options::SolveError`]
//! (a test of `solver` checks it on every algorithm, variant and thread count); probes
//! set for an algorithm that does not read them are refused here and ignored by the
//! solver.

use super::names::Algorithm;
use super::options::resolve_algorithm;
use crate::search::budget::MAX_THREADS;
use crate::variant::Variant;

/// Largest table or memory budget one request may ask for, in MiB (16 GiB).
pub const MAX_TABLE_MB: u64 = 16 * 1024;

/// One limit a request may set.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Limit {
    /// Most positions searched.
    Nodes,
    /// Most time, in milliseconds.
    TimeMs,
    /// Most table (or, for `exact`, visited-set) memory, in MiB.
    TableMb,
    /// Most random probes (`sampling`, `auto` on `common`).
    Probes,
    /// Threads of one solve.
    Threads,
}

impl Limit {
    /// Every limit, each once.
    pub const ALL: [Limit; 5] = [
        Limit::Nodes,
        Limit::TimeMs,
        Limit::TableMb,
        Limit::Probes,
        Limit::Threads,
    ];

    /// The name of the limit in requests (`limits.<name>` in a job).
    pub fn name(self) -> &'static str {
        match self {
            Limit::Nodes => "nodes",
            Limit::TimeMs => "time_ms",
            Limit::TableMb => "table_mb",
            Limit::Probes => "probes",
            Limit::Threads => "threads",
        }
    }

    /// The smallest value accepted.
    pub fn min(self) -> u64 {
        1
    }

    /// The largest value the engine accepts (`u64::MAX`: no bound of its own).
    pub fn max(self) -> u64 {
        match self {
            Limit::Nodes | Limit::TimeMs | Limit::Probes => u64::MAX,
            Limit::TableMb => MAX_TABLE_MB,
            Limit::Threads => MAX_THREADS as u64,
        }
    }

    /// `value` if it lies between [`Limit::min`] and the smaller of [`Limit::max`] and
    /// `cap` (a front end's own bound), else the error that says so.
    pub fn check(self, value: u64, cap: Option<u64>) -> Result<u64, OptionError> {
        let max = cap.map_or(self.max(), |cap| cap.min(self.max()));
        if (self.min()..=max).contains(&value) {
            Ok(value)
        } else {
            Err(OptionError::OutOfRange {
                limit: self,
                max,
                got: value,
            })
        }
    }
}

/// A request whose limits the engine would refuse. Each front end names the limit in its
/// own words ([`OptionError::message`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum OptionError {
    /// A value outside its range.
    OutOfRange {
        /// The limit.
        limit: Limit,
        /// The largest value accepted there.
        max: u64,
        /// The value given.
        got: u64,
    },
    /// A limit set for an algorithm that does not read it.
    NotApplicable {
        /// The limit.
        limit: Limit,
        /// The algorithm asked for.
        algorithm: Algorithm,
        /// The variant asked for.
        variant: Variant,
    },
    /// The algorithm does not play this variant.
    UnsupportedVariant {
        /// The algorithm asked for.
        algorithm: Algorithm,
        /// The variant asked for.
        variant: Variant,
    },
}

impl OptionError {
    /// The message, with each limit named by `field` (`--search-threads`,
    /// `limits.threads`, ...).
    pub fn message(&self, field: impl Fn(Limit) -> String) -> String {
        match *self {
            OptionError::OutOfRange { limit, max, got } if max == u64::MAX => {
                format!("{} must be at least {} (got {got})", field(limit), limit.min())
            }
            OptionError::OutOfRange { limit, max, got } => format!(
                "{} must be between {} and {max} (got {got})",
                field(limit),
                limit.min()
            ),
            OptionError::NotApplicable {
                limit: Limit::Threads,
                algorithm,
                variant,
            } => format!(
                "{} above 1 applies to blocks, exact and hybrid, and to auto on common; not to {algorithm} on {variant}",
                field(Limit::Threads)
            ),
            OptionError::NotApplicable {
                limit,
                algorithm,
                variant,
            } => format!(
                "{} applies to sampling, and to auto on common; not to {algorithm} on {variant}",
                field(limit)
            ),
            OptionError::UnsupportedVariant { algorithm, variant } => {
                let supported: Vec<&str> = Variant::ALL
                    .into_iter()
                    .filter(|&v| resolve_algorithm(algorithm, v).is_ok())
                    .map(Variant::name)
                    .collect();
                format!(
                    "algorithm {algorithm} works only with the {} variant, not {variant}",
                    supported.join(" or ")
                )
            }
        }
    }
}

/// Whether an algorithm, as [`resolve_algorithm`] gives it, can use several threads on
/// one solve: `blocks` (parallel block search), `exact` (threads sharing one visited
/// set), `hybrid` (probes on helper threads) and `auto` on `common` (`auto` resolves to
/// `dfs` on `basic`).
pub fn runs_on_threads(resolved: Algorithm) -> bool {
    matches!(
        resolved,
        Algorithm::Blocks | Algorithm::Exact | Algorithm::Hybrid | Algorithm::Auto
    )
}

/// Checks what ties a request's limits to its algorithm: the algorithm plays the
/// variant, probes are set only for `sampling` (and `auto` on `common`), and more than
/// one thread only for an algorithm that [`runs_on_threads`]. Ranges are checked apart
/// ([`Limit::check`]). Returns the algorithm as it resolves on the variant.
pub fn check_request(
    algorithm: Algorithm,
    variant: Variant,
    probes: Option<u64>,
    threads: u64,
) -> Result<Algorithm, OptionError> {
    let resolved = resolve_algorithm(algorithm, variant)
        .map_err(|_| OptionError::UnsupportedVariant { algorithm, variant })?;
    let not_applicable = |limit| OptionError::NotApplicable {
        limit,
        algorithm,
        variant,
    };
    if probes.is_some() && !matches!(resolved, Algorithm::Sampling | Algorithm::Auto) {
        return Err(not_applicable(Limit::Probes));
    }
    if threads > 1 && !runs_on_threads(resolved) {
        return Err(not_applicable(Limit::Threads));
    }
    Ok(resolved)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges_take_the_smaller_bound_and_say_the_field() {
        assert_eq!(Limit::Threads.check(2, None), Ok(2));
        let wide = Limit::Threads.check(1000, Some(5000)).unwrap_err();
        assert_eq!(
            wide.message(|l| format!("--{}", l.name())),
            format!("--threads must be between 1 and {MAX_THREADS} (got 1000)")
        );
        let zero = Limit::Nodes.check(0, None).unwrap_err();
        assert_eq!(
            zero.message(|l| format!("limits.{}", l.name())),
            "limits.nodes must be at least 1 (got 0)"
        );
        assert!(Limit::TableMb.check(MAX_TABLE_MB, None).is_ok());
        assert!(Limit::TableMb.check(MAX_TABLE_MB + 1, None).is_err());
        assert!(Limit::TableMb.check(9, Some(8)).is_err());
    }

    #[test]
    fn probes_and_threads_apply_only_where_they_are_read() {
        use Algorithm::*;
        for variant in Variant::ALL {
            for algorithm in Algorithm::ALL {
                let Ok(resolved) = resolve_algorithm(algorithm, variant) else {
                    let e = check_request(algorithm, variant, None, 1).unwrap_err();
                    assert!(e.message(|l| l.name().into()).contains("works only with"));
                    continue;
                };
                assert_eq!(check_request(algorithm, variant, None, 1), Ok(resolved));
                let probes = check_request(algorithm, variant, Some(10), 1);
                assert_eq!(probes.is_ok(), matches!(resolved, Sampling | Auto));
                let threads = check_request(algorithm, variant, None, 2);
                assert_eq!(threads.is_ok(), runs_on_threads(resolved));
            }
        }
    }
}
