//! The interactive loop: line editing and history (rustyline), multi-line input
//! (a form left open continues on the next line), errors reported and survived.

use crate::Session;
use rustyline::error::ReadlineError;

/// Runs the REPL until end of input. History is kept in `history` if given.
pub fn run(session: &mut Session, history: Option<&std::path::Path>) -> Result<(), ReadlineError> {
    let mut editor = rustyline::DefaultEditor::new()?;
    if let Some(h) = history {
        let _ = editor.load_history(h);
    }
    let mut pending = String::new();
    loop {
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
        match session.eval("<repl>", &pending) {
            Err(e) if e.is_incomplete() => continue,
            Err(e) => eprintln!("{e}"),
            Ok(Some(v)) => println!("{v}"),
            Ok(None) => {}
        }
        let _ = editor.add_history_entry(pending.trim_end());
        pending.clear();
    }
    if let Some(h) = history {
        let _ = editor.save_history(h);
    }
    Ok(())
}
