//! The interactive loop: line editing and history (rustyline), multi-line input
//! (a form left open continues on the next line), errors reported and survived,
//! `(exit)` honoured. Output that does not end with a newline gets one before the
//! next prompt (the prompt would otherwise overwrite it).

use crate::{ErrorKind, Session};
use rustyline::error::ReadlineError;

/// Runs the REPL until end of input (returning 0) or until the program calls
/// `exit` (returning its status). History is kept in `history` if given.
pub fn run(session: &mut Session, history: Option<&std::path::Path>) -> Result<u8, ReadlineError> {
    let mut editor = rustyline::DefaultEditor::new()?;
    if let Some(h) = history {
        let _ = editor.load_history(h);
    }
    let mut pending = String::new();
    let mut status = 0;
    loop {
        session.end_line();
        let prompt = if pending.is_empty() {
            "toyvm> "
        } else {
            "  ...> "
        };
        let line = match editor.readline(prompt) {
            Ok(line) => line,
            Err(ReadlineError::Interrupted) => {
                pending.clear();
                continue;
            }
            Err(ReadlineError::Eof) => break,
            Err(e) => return Err(e),
        };
        pending.push_str(&line);
        pending.push('\n');
        let r = session.eval("<repl>", &pending);
        if let Err(e) = &r {
            if e.is_incomplete() {
                continue;
            }
        }
        let _ = editor.add_history_entry(pending.trim_end());
        pending.clear();
        session.end_line();
        match r {
            Err(e) => match e.kind {
                ErrorKind::Exit(code) => {
                    status = code;
                    break;
                }
                _ => eprintln!("{e}"),
            },
            Ok(Some(v)) => println!("{v}"),
            Ok(None) => {}
        }
    }
    if let Some(h) = history {
        let _ = editor.save_history(h);
    }
    Ok(status)
}
