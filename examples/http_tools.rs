//! The example tools over plain HTTP: `POST /tools/{name}`, `GET /tools`, `GET /manifest`,
//! served by envelope's bounded server (`envelope_core::http::serve`).
//!
//! `cargo run --example http_tools` listens on `127.0.0.1:8080` and prints its URL; `--port` (or
//! `PORT`; `0` picks a free one) chooses the port. With `--token` (or `TOKEN`) every request
//! needs `Authorization: Bearer <token>`. Browsers are served from loopback origins only. Each
//! call logs one line to stderr (tool, status, error_code, http_status, duration_ms; a fault's
//! trace_id), and so does each request or connection the server refuses; `RUST_LOG`
//! (`target=level` directives, e.g. `RUST_LOG=warn`) chooses other levels, and one it cannot
//! read stops the server at start with exit code 2.
//!
//! ```text
//! curl -s -X POST localhost:8080/tools/get_top_queries -d '{"hours_back": 0, "group_by": "databse"}'
//! ```

use std::io;

use envelope_core::http::{AuthLayer, BearerTokens, HttpTools, OriginLayer};
use tracing_subscriber::filter::{LevelFilter, Targets};
use tracing_subscriber::{Layer as _, layer::SubscriberExt as _, util::SubscriberInitExt as _};

#[allow(dead_code)] // each example uses some of the tools module
mod tools;

/// `--name value`, `--name=value`, else the environment variable `env`.
fn setting(args: &[String], name: &str, env: &str) -> Option<String> {
    let flag = format!("--{name}");
    let mut value = std::env::var(env).ok();
    for (i, arg) in args.iter().enumerate() {
        if *arg == flag {
            value = args.get(i + 1).cloned();
        } else if let Some(v) = arg.strip_prefix(&format!("{flag}=")) {
            value = Some(v.to_owned());
        }
    }
    value
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> io::Result<()> {
    // One line per call and per refusal; or what RUST_LOG asks for.
    let filter = match std::env::var("RUST_LOG") {
        Ok(directives) if !directives.trim().is_empty() => directives.parse::<Targets>().unwrap_or_else(|e| {
            eprintln!("RUST_LOG={directives:?} is not a list of target=level directives ({e}); e.g. RUST_LOG=debug");
            std::process::exit(2);
        }),
        _ => Targets::new().with_default(LevelFilter::INFO),
    };
    tracing_subscriber::registry()
        .with(tracing_subscriber::fmt::layer().with_writer(io::stderr).with_filter(filter))
        .init();
    let args: Vec<String> = std::env::args().skip(1).collect();
    let port = setting(&args, "port", "PORT").unwrap_or_else(|| "8080".to_owned());
    let Ok(port) = port.parse::<u16>() else {
        eprintln!("--port {port:?} is not a port number; send a whole number from 0 to 65535, like --port 8080");
        std::process::exit(2);
    };
    let toolbox = tools::configured().await.map_err(io::Error::other)?;
    let mut app = HttpTools::new(toolbox).router();
    if let Some(token) = setting(&args, "token", "TOKEN") {
        if token.is_empty() {
            eprintln!("--token is empty; send the token the clients will present, like --token s3cret");
            std::process::exit(2);
        }
        app = app.layer(AuthLayer::new(BearerTokens::new([token])));
    }
    let app = app.layer(OriginLayer::loopback());
    let listener = tokio::net::TcpListener::bind(("127.0.0.1", port)).await?;
    println!("envelope example tools over HTTP: http://{}/tools", listener.local_addr()?);
    envelope_core::http::serve(listener, app).routes(["POST /tools/{name}", "GET /tools", "GET /manifest"]).await
}
