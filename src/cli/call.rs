//! The command line's commands as a call from another program (the Python package,
//! docs/python.md): the arguments the binary would be given in, the answer `--json`
//! would print out, steered by a [`Caller`].
//!
//! Invariants: the arguments are parsed by the binary's own parser and checked by the
//! command's own checks, so a call accepts and refuses exactly what the binary does,
//! with the same words; an answer is the value the command's `--json` prints (for
//! `deal`, which has no `--json`, its lines); nothing is written to standard output or
//! standard error.

use super::caller::{Caller, Cancelled};
use super::{Cli, Command, InputError, Subject};
use clap::Parser;

/// The commands a call may run.
pub const COMMANDS: [&str; 4] = ["solve", "review", "deal", "winrate"];

/// What a call answers.
#[derive(Debug, Clone, PartialEq)]
pub enum Answer {
    /// What `--json` prints, as it prints it (a PySolFC game number past 2^64 stays a
    /// number, which a `serde_json::Value` could not hold).
    Json(String),
    /// The lines the command prints (`deal`).
    Lines(Vec<String>),
}

/// Why a call gave no answer.
#[derive(Debug, thiserror::Error)]
pub enum CallError {
    /// The arguments do not parse (the parser's message, as the binary prints it less
    /// its usage lines), or the command is not one a call may run.
    #[error("{0}")]
    Usage(String),
    /// Bad input: the binary would exit 2 with `error: ` and this message.
    #[error("{message}")]
    Input { message: String, subject: Subject },
    /// The caller raised its flag before the command finished.
    #[error("stopped by the caller")]
    Cancelled,
    /// An internal failure: the binary would exit 1 with this message.
    #[error("{0}")]
    Internal(String),
}

/// Runs the command `args` names (`["solve", "--deal", "5"]`: the binary's arguments
/// less its name) for `caller`.
pub fn call(args: &[String], caller: &Caller) -> Result<Answer, CallError> {
    let argv = std::iter::once("gaps").chain(args.iter().map(String::as_str));
    let cli = Cli::try_parse_from(argv).map_err(|e| CallError::Usage(usage_message(&e)))?;
    let answer = match cli.command {
        Some(Command::Solve(cmd)) if cmd.jsonl => {
            return Err(CallError::Usage(
                "--jsonl reads standard input line by line: call once a position instead".into(),
            ))
        }
        Some(Command::Solve(cmd)) if cmd.played.is_some() => {
            super::played::answer(&cmd, caller).and_then(json)
        }
        Some(Command::Solve(cmd)) => super::solve::answer(&cmd, caller).and_then(json),
        Some(Command::Review(cmd)) => {
            super::played::review(&cmd, caller).and_then(|r| json(r.answer))
        }
        Some(Command::Winrate(cmd)) => {
            super::winrate::answer(&cmd, caller).and_then(|(summary, _)| json(summary))
        }
        Some(Command::Deal(cmd)) => {
            return super::deal::lines(&cmd).map(Answer::Lines).map_err(failure)
        }
        _ => {
            return Err(CallError::Usage(format!(
                "a call runs one of {}",
                COMMANDS.join(", ")
            )))
        }
    };
    let answer = answer.map_err(failure)?;
    if caller.cancelled() {
        // A search the flag cut short answers `unknown`: not the answer asked for.
        return Err(CallError::Cancelled);
    }
    Ok(Answer::Json(answer))
}

fn json(value: impl serde::Serialize) -> anyhow::Result<String> {
    Ok(serde_json::to_string(&value)?)
}

/// An error of a command as the call reports it: bad input, the caller's stop, or an
/// internal failure with its causes (as the binary prints them).
fn failure(e: anyhow::Error) -> CallError {
    if e.is::<Cancelled>() {
        return CallError::Cancelled;
    }
    match e.downcast::<InputError>() {
        Ok(InputError { message, subject }) => CallError::Input { message, subject },
        Err(e) => CallError::Internal(format!("{e:#}")),
    }
}

/// The parser's message without its `error: ` prefix and its usage lines: what was
/// wrong, in the parser's words.
fn usage_message(e: &clap::Error) -> String {
    let text = e.render().to_string();
    let first = text
        .lines()
        .take_while(|line| !line.trim_start().starts_with("Usage:"))
        .map(str::trim_end)
        .collect::<Vec<_>>()
        .join("\n");
    first
        .trim()
        .trim_start_matches("error: ")
        .trim_end()
        .to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::AtomicBool;

    fn args(line: &str) -> Vec<String> {
        line.split_whitespace().map(String::from).collect()
    }

    #[test]
    fn a_call_answers_what_json_prints_and_refuses_with_the_binarys_words() {
        let answer = call(
            &args("solve --deal 5 --suits 2 --ranks 4"),
            &Caller::TERMINAL,
        );
        let Ok(Answer::Json(text)) = answer else {
            panic!("{answer:?}")
        };
        let json: serde_json::Value = serde_json::from_str(&text).unwrap();
        assert!(["solvable", "unsolvable"].contains(&json["verdict"].as_str().unwrap()));
        let refused = call(&args("solve x y"), &Caller::TERMINAL).unwrap_err();
        assert!(
            matches!(&refused, CallError::Input { message, subject: Subject::Position }
                if message.starts_with("invalid position:")),
            "{refused:?}"
        );
        let refused = call(&args("solve --pysol montana:0"), &Caller::TERMINAL).unwrap_err();
        assert!(
            matches!(
                &refused,
                CallError::Input {
                    subject: Subject::Game,
                    ..
                }
            ),
            "{refused:?}"
        );
        let refused = call(&args("solve --nodes many --deal 5"), &Caller::TERMINAL).unwrap_err();
        assert!(
            matches!(&refused, CallError::Usage(m) if m.contains("--nodes") && !m.contains("Usage")),
            "{refused:?}"
        );
        assert!(matches!(
            call(&args("serve"), &Caller::TERMINAL),
            Err(CallError::Usage(_))
        ));
    }

    /// A PySolFC game number past 2^64 (PySolFC deals them) is written as a number,
    /// by `solve` and by `review` alike.
    #[test]
    fn a_game_number_past_2_64_is_answered_as_the_binary_writes_it() {
        let number = "37056232017532624896";
        let game = format!("montana:{number}");
        let solve = call(
            &args(&format!("solve --pysol {game} --nodes 10")),
            &Caller::TERMINAL,
        );
        let Ok(Answer::Json(text)) = solve else {
            panic!("{solve:?}")
        };
        assert!(text.contains(&format!("\"number\":{number}")), "{text}");
        let caller = Caller {
            stdin: Some("[]"),
            ..Caller::TERMINAL
        };
        let review = call(
            &args(&format!("review --pysol {game} --played - --nodes 10")),
            &caller,
        );
        let Ok(Answer::Json(text)) = review else {
            panic!("{review:?}")
        };
        assert!(text.contains(&format!("\"number\":{number}")), "{text}");
    }

    #[test]
    fn standard_input_is_the_callers_text_and_a_raised_flag_answers_nothing() {
        let position = "-- 4S 4H 2S/3S 3H 2H --";
        let caller = Caller {
            stdin: Some(position),
            ..Caller::TERMINAL
        };
        let answer = call(&args("solve --variant basic -"), &caller).unwrap();
        let Answer::Json(text) = answer else { panic!() };
        let json: serde_json::Value = serde_json::from_str(&text).unwrap();
        assert!(json["position"].as_str().is_some());
        let flag = AtomicBool::new(true);
        let caller = Caller {
            cancel: Some(&flag),
            ..Caller::TERMINAL
        };
        assert!(matches!(
            call(&args("solve --deal 5 --variant common"), &caller),
            Err(CallError::Cancelled)
        ));
        let lines = call(&args("deal --seed 3 --count 2"), &Caller::TERMINAL).unwrap();
        assert!(matches!(lines, Answer::Lines(l) if l.len() == 2));
    }
}
