//! `reproduce <experiment>`: paper reproductions. `reproduce list` names them; `reproduce all`
//! runs every one.

use host_tests::experiments::{find, EXPERIMENTS};
use std::process::ExitCode;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some(name) = args.first() else {
        eprintln!("usage: reproduce <experiment>|list|all");
        return ExitCode::from(2);
    };
    match name.as_str() {
        "list" => {
            for e in EXPERIMENTS {
                println!("{:<20} {}", e.name, e.about);
            }
            ExitCode::SUCCESS
        }
        "all" => {
            for e in EXPERIMENTS {
                println!("== {}: {}", e.name, e.about);
                (e.run)();
                println!();
            }
            ExitCode::SUCCESS
        }
        other => match find(other) {
            Some(e) => {
                println!("== {}: {}", e.name, e.about);
                (e.run)();
                ExitCode::SUCCESS
            }
            None => {
                eprintln!("unknown experiment `{other}`; `reproduce list` names them");
                ExitCode::from(2)
            }
        },
    }
}
