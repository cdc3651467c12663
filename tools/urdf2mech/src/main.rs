//! `urdf2mech <in.urdf> [-o out.rs] [--module name]`: prints (or writes) the Rust source of the
//! mechanism the URDF describes.

use std::process::ExitCode;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mut input = None;
    let mut output = None;
    let mut options = urdf2mech::Options::default();
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "-o" | "--output" => output = it.next().cloned(),
            "--module" => options.module = it.next().cloned(),
            "-h" | "--help" => {
                println!("usage: urdf2mech <in.urdf> [-o out.rs] [--module name]");
                return ExitCode::SUCCESS;
            }
            _ if input.is_none() => input = Some(a.clone()),
            _ => {
                eprintln!("urdf2mech: unexpected argument {a:?}");
                return ExitCode::from(2);
            }
        }
    }
    let Some(input) = input else {
        eprintln!("usage: urdf2mech <in.urdf> [-o out.rs] [--module name]");
        return ExitCode::from(2);
    };
    let text = match std::fs::read_to_string(&input) {
        Ok(t) => t,
        Err(e) => {
            eprintln!("urdf2mech: cannot read {input}: {e}");
            return ExitCode::FAILURE;
        }
    };
    let name = std::path::Path::new(&input)
        .file_name()
        .map(|s| s.to_string_lossy().into_owned());
    options.source = name;
    let source = match urdf2mech::emit_with(&text, &options) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("urdf2mech: {input}: {e}");
            return ExitCode::FAILURE;
        }
    };
    match output {
        Some(path) => match std::fs::write(&path, source) {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => {
                eprintln!("urdf2mech: cannot write {path}: {e}");
                ExitCode::FAILURE
            }
        },
        None => {
            print!("{source}");
            ExitCode::SUCCESS
        }
    }
}
