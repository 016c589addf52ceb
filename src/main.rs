//! `grandmaitre`: the command-line interface of the Grand Maître engine.

mod cli;
mod commands;

use std::process::ExitCode;

use clap::Parser;
use grandmaitre_engine::game::OneLine;

fn main() -> ExitCode {
    // Output piped into a command that stops reading (`| head`) ends the
    // program quietly, as it does any Unix tool, instead of failing to
    // print.
    sigpipe::reset();
    let args = match cli::Cli::try_parse() {
        Ok(args) => args,
        Err(error) => return cli::report_usage_error(&error),
    };
    match commands::run(args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            // One line, whatever text from outside the message quotes.
            let message = format!("{error:#}");
            eprintln!("error: {}", OneLine(&message));
            ExitCode::from(2)
        }
    }
}
