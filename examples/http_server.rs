//! The example MCP server over Streamable HTTP: the tools of the project's example set, served
//! statelessly at `/mcp`, and the same tools as plain HTTP endpoints at `/tools/{name}` on the
//! same port, by envelope's bounded server (`envelope_core::http::serve`: timeouts on request
//! heads and bodies, bounds on connections, requests in flight and body bytes, loopback `Host`
//! names only on a loopback address).
//!
//! `cargo run --example http_server` listens on `127.0.0.1:8080` and prints its URL (the last
//! line on stdout; `--help` lists the options). Choose the address with `--host` / `--port`
//! (or the `HOST` / `PORT` environment variables; port `0` picks a free one). An argument that
//! is none of the options stops it at start. Each call logs one line to stderr (a tool's own log
//! messages besides, at their levels; its progress at `debug`), and so
//! does each request or connection the server refuses; `RUST_LOG` (`target=level` directives
//! and a default level, comma-separated: `debug`, `warn,envelope_core=debug`) chooses what is
//! logged instead (an unreadable one stops it at start). Attach a client, e.g. the MCP Inspector:
//! `npx -y @modelcontextprotocol/inspector --cli http://127.0.0.1:8080/mcp --transport http --method tools/list`.
//!
//! Configured from the environment:
//!
//! - `ENVELOPE_JWKS` (a file path or an `https://` URL, or `http://` on loopback) and/or
//!   `ENVELOPE_JWT_HS256_SECRET` (development), with `ENVELOPE_ISSUER` (required with either):
//!   every request needs `Authorization: Bearer <JWT>`, its `aud` the endpoint's resource URL,
//!   `ENVELOPE_RESOURCE` (default `http://<bound address>/mcp`; the internal endpoint's is the
//!   same with `/internal/mcp`). The tools need scopes (`notes:read`, `notes:write`,
//!   `notes:admin`; see `tools::SCOPES`); `/internal/mcp` (the internal surface, where the T4
//!   `purge_notes` is offered) also needs scope `internal` and a tenant (the token's
//!   `tenant_id`, else `X-Tenant-ID`). The Protected Resource Metadata (RFC 9728) of both is
//!   served at `/.well-known/oauth-protected-resource/mcp` and `.../internal/mcp`.
//! - Without them: loopback, no authentication (anonymous callers, no scopes), or one static
//!   token with `--token` (or `TOKEN`); no internal surface. The start line on stderr says which.
//! - `ENVELOPE_AUDIT_FILE`: the audit trail as JSON lines in that file; else, with
//!   `ENVELOPE_REDIS_URL`, in the Redis stream `envelope:audit`; else no audit trail.
//!   The writes (tier 2 and up: `create_note`, `delete_note`, `purge_notes`, ...) are governed:
//!   their intent is recorded before the body runs, or the call answers `AUDIT_UNAVAILABLE`.
//! - `ENVELOPE_RATE_LIMIT` (`5/s`, `30/min`, `100/h`): `create_note`'s limit per caller and
//!   tenant, 30 a minute by default.
//! - `ENVELOPE_SECRET`, `ENVELOPE_REDIS_URL`: as for `mcp_server` (approvals and idempotency
//!   keys, and the rate limits, in that Redis).
//!
//! `rebuild_index` is also served as an MCP task (`tools::with_tasks`): a client that declared
//! `io.modelcontextprotocol/tasks` gets a task to poll (`tasks/get`) and cancel (`tasks/cancel`)
//! on this server; tasks live in the toolbox's store (in memory, or the Redis of
//! `ENVELOPE_REDIS_URL`, where any replica answers for them).
//!
//! Every reply carries `provenance` (its call id, surface, tool, tier, caller and tenant). Notes
//! are kept per tenant, over every surface alike. A setting that cannot be used stops the
//! server at start with a sentence on stderr and exit code 2.

use std::io;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;

use axum::http::{Method, header};
use axum::response::IntoResponse as _;
use envelope_core::call::audit::{Audit, JsonLinesFile, RedisStream};
use envelope_core::http::auth::{Jwks, JwtVerifier, ProtectedResource};
use envelope_core::http::{AllowedHosts, AuthLayer, BearerTokens, HttpTools, OriginLayer, Serve, TransportError};
use envelope_core::mcp::{McpServer, streamable::McpHttp};
use envelope_core::{Toolbox, call::Surface, spec::rate::RateLimit};
use tracing_subscriber::filter::{LevelFilter, Targets};
use tracing_subscriber::{Layer as _, layer::SubscriberExt as _, util::SubscriberInitExt as _};

#[allow(dead_code)] // each example uses some of the tools module
mod tools;

/// The routes a `not_found` answer names: those [`app`] mounts for `config` (`/internal/mcp`
/// only with JWTs).
pub fn routes(config: &Config) -> Vec<&'static str> {
    let mut routes = vec!["POST /mcp", "POST /tools/{name}", "GET /tools", "GET /manifest"];
    if matches!(config.auth, Auth::Jwt { .. }) {
        routes.insert(1, "POST /internal/mcp");
    }
    routes
}

/// The server of [`app`] for `config` on `listener` (bound at `address`), as `main` runs it:
/// its `not_found` names the [`routes`] mounted; `/internal/mcp`, where mounted, answers its
/// refusals in JSON-RPC; a resource URL's host is served beside the loopback names.
pub fn server(config: &Config, listener: tokio::net::TcpListener, address: SocketAddr, app: axum::Router) -> Serve {
    let mut serve = envelope_core::http::serve(listener, app).routes(routes(config));
    if matches!(config.auth, Auth::Jwt { .. }) {
        serve = serve.json_rpc_path("/internal/mcp");
    }
    if let Some(hosts) = hosts(config, address) {
        serve = serve.hosts(hosts);
    }
    serve
}

/// How callers are verified.
#[derive(Clone, Debug, Default)]
pub enum Auth {
    /// Anonymous callers (loopback use).
    #[default]
    None,
    /// One static bearer token (`--token`); the caller is the token's subject
    /// (`bearer-token-1`), with no scopes.
    Token(String),
    /// Bearer JWTs from `issuer`, verified with a JWKS (a file path or URL) and/or an HS256
    /// secret.
    Jwt { issuer: String, jwks: Option<String>, hs256_secret: Option<String> },
}

/// The server's settings: [`Config::from_env`] reads them; tests build one.
#[derive(Clone, Debug, Default)]
pub struct Config {
    /// How callers are verified.
    pub auth: Auth,
    /// The public endpoint's resource URL (`aud` of its tokens); `None`: `http://<address>/mcp`.
    pub resource: Option<String>,
    /// `ENVELOPE_AUDIT_FILE`.
    pub audit_file: Option<PathBuf>,
    /// `ENVELOPE_REDIS_URL`.
    pub redis_url: Option<String>,
    /// `ENVELOPE_RATE_LIMIT`: `create_note`'s limit; `None`: 30 a minute.
    pub rate_limit: Option<RateLimit>,
    /// `ENVELOPE_SECRET`: the key sealing pending actions.
    pub secret: Option<String>,
}

/// The environment variable `name`, when set to something.
fn env(name: &str) -> Option<String> {
    std::env::var(name).ok().filter(|v| !v.is_empty())
}

/// What `--help` prints.
pub const USAGE: &str = "usage: http_server [--host ADDRESS] [--port PORT] [--token TOKEN]

Serves the example tools over MCP Streamable HTTP at /mcp and as plain HTTP at /tools/{name}.
  --host ADDRESS  the address to listen on (HOST; default 127.0.0.1)
  --port PORT     the port (PORT; default 8080; 0 picks a free one)
  --token TOKEN   one static bearer token every request must present (TOKEN)
Authentication by JWTs, the audit trail, rate limits and Redis are set from the environment:
see the documentation at the top of examples/http_server.rs.";

/// The first argument that is none of the options (`--host`, `--port`, `--token`, each with its
/// value after it or after `=`).
pub fn unknown_argument(args: &[String]) -> Option<&str> {
    let mut args = args.iter();
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--host" | "--port" | "--token" => {
                args.next();
            }
            a if ["--host=", "--port=", "--token="].iter().any(|p| a.starts_with(p)) => {}
            a => return Some(a),
        }
    }
    None
}

/// `--name value`, `--name=value`, else the environment variable `env`, else `default`.
fn setting(args: &[String], name: &str, env: &str, default: &str) -> String {
    let flag = format!("--{name}");
    let mut value = std::env::var(env).ok();
    for (i, arg) in args.iter().enumerate() {
        if *arg == flag {
            value = args.get(i + 1).cloned();
        } else if let Some(v) = arg.strip_prefix(&format!("{flag}=")) {
            value = Some(v.to_owned());
        }
    }
    value.unwrap_or_else(|| default.to_owned())
}

impl Config {
    /// The settings of the environment (see the module's documentation) and of `--token`.
    ///
    /// # Errors
    /// A sentence for the operator: an issuer without keys or keys without an issuer, a
    /// resource without keys, `--token` together with JWTs, a rate limit that is not `N/s`,
    /// `N/min` or `N/h`.
    pub fn from_env(args: &[String]) -> Result<Config, String> {
        let token = setting(args, "token", "TOKEN", "");
        if args.iter().any(|a| a == "--token" || a.starts_with("--token=")) && token.is_empty() {
            return Err("--token is empty; send the token the clients will present, like --token s3cret".to_owned());
        }
        let (jwks, hs256_secret, issuer) =
            (env("ENVELOPE_JWKS"), env("ENVELOPE_JWT_HS256_SECRET"), env("ENVELOPE_ISSUER"));
        let resource = env("ENVELOPE_RESOURCE");
        let auth = match (jwks.is_some() || hs256_secret.is_some(), issuer) {
            (true, Some(issuer)) if token.is_empty() => Auth::Jwt { issuer, jwks, hs256_secret },
            (true, Some(_)) => {
                return Err("--token (TOKEN) and ENVELOPE_JWKS / ENVELOPE_JWT_HS256_SECRET are both set; \
                            choose one way to verify callers"
                    .to_owned());
            }
            (true, None) => {
                return Err("ENVELOPE_ISSUER is not set; with ENVELOPE_JWKS or ENVELOPE_JWT_HS256_SECRET send \
                            the issuer your tokens name in `iss`, like ENVELOPE_ISSUER=https://auth.example.com"
                    .to_owned());
            }
            (false, Some(_)) => {
                return Err("ENVELOPE_ISSUER is set without keys; set ENVELOPE_JWKS (a JWKS file or URL) or \
                            ENVELOPE_JWT_HS256_SECRET too"
                    .to_owned());
            }
            (false, None) if resource.is_some() => {
                return Err("ENVELOPE_RESOURCE is set without keys; set ENVELOPE_JWKS or \
                            ENVELOPE_JWT_HS256_SECRET and ENVELOPE_ISSUER too"
                    .to_owned());
            }
            (false, None) if token.is_empty() => Auth::None,
            (false, None) => Auth::Token(token),
        };
        let rate_limit = match env("ENVELOPE_RATE_LIMIT") {
            Some(limit) => Some(limit.parse::<RateLimit>().map_err(|e| format!("ENVELOPE_RATE_LIMIT: {e}"))?),
            None => None,
        };
        Ok(Config {
            auth,
            resource,
            audit_file: env("ENVELOPE_AUDIT_FILE").map(PathBuf::from),
            redis_url: env("ENVELOPE_REDIS_URL"),
            rate_limit,
            secret: env("ENVELOPE_SECRET"),
        })
    }

    /// The public endpoint's resource URL: `ENVELOPE_RESOURCE`, else `http://<address>/mcp`.
    pub fn resource(&self, address: SocketAddr) -> String {
        self.resource.clone().unwrap_or_else(|| format!("http://{address}/mcp"))
    }
}

/// The internal endpoint's resource URL: the public one's with `/internal/mcp` for its `/mcp`
/// (`https://notes.example.com/mcp` -> `https://notes.example.com/internal/mcp`).
pub fn internal_resource(resource: &str) -> String {
    let base = resource.trim_end_matches('/');
    let base = base.strip_suffix("/mcp").unwrap_or(base);
    format!("{base}/internal/mcp")
}

/// The example tools as this server runs them, over one note store: with `purge_notes`
/// (shown only on the internal surface), `rebuild_index` and `whoami`, the secret, the store,
/// the audit trail, provenance and `create_note`'s rate limit of `config`.
///
/// # Errors
/// A sentence for the operator: a secret too short, a Redis that cannot be reached, an audit
/// file that cannot be opened.
pub async fn toolbox(config: &Config) -> Result<Toolbox, String> {
    let notes = Arc::new(tools::NoteStore::default());
    let mut toolbox =
        tools::with_context_tools(tools::toolbox_over(Arc::clone(&notes)).with_state(Arc::new(tools::Purge(notes))));
    if let Some(secret) = &config.secret {
        toolbox = toolbox.with_secret(secret).map_err(|e| format!("ENVELOPE_SECRET: {e}"))?;
    }
    let mut redis = None;
    if let Some(url) = &config.redis_url {
        let store = envelope_core::call::guard::store::RedisStore::connect(url)
            .await
            .map_err(|e| format!("ENVELOPE_REDIS_URL: {e}"))?;
        toolbox = toolbox.with_store(Arc::new(store.clone()));
        redis = Some(store);
    }
    let audit = match (&config.audit_file, redis) {
        (Some(path), _) => Some(Audit::new(Arc::new(
            JsonLinesFile::open(path).map_err(|e| format!("ENVELOPE_AUDIT_FILE {}: {e}", path.display()))?,
        ))),
        (None, Some(store)) => Some(Audit::new(Arc::new(RedisStream::new(store, "envelope:audit")))),
        (None, None) => None,
    };
    if let Some(audit) = audit {
        // create_note (T2) is a governed write as delete_note (T3) is: its intent is recorded first.
        toolbox = toolbox.with_audit(audit.with_intent_from_tier(2));
    }
    if matches!(config.auth, Auth::Jwt { .. }) {
        toolbox = tools::with_scopes(toolbox);
    }
    let limit = config.rate_limit.unwrap_or_else(|| RateLimit::per_minute(30));
    Ok(toolbox.with_provenance().with_tool_rate_limit("create_note", limit))
}

/// The internal surface: every tool (T4 ones included), for callers granted `internal` with a
/// tenant.
pub fn internal_surface() -> Surface {
    Surface::internal("internal").with_scopes(["internal"]).requiring_tenant()
}

/// The server's routes for `config`, served at `address`: `/mcp` and `/tools/*` (the public
/// surface), and with JWTs `/internal/mcp` (the internal surface) and the Protected Resource
/// Metadata of both.
///
/// # Errors
/// A sentence for the operator: what [`toolbox`] refuses, a JWKS that cannot be read or
/// fetched or holds no usable key.
pub async fn app(config: &Config, address: SocketAddr) -> Result<axum::Router, String> {
    let toolbox = toolbox(config).await?;
    // On the public surface, as `McpHttp::new` serves a toolbox, with rebuild_index as a task.
    let mut mcp = McpHttp::with_handler(tools::with_tasks(McpServer::new(toolbox.clone()).with_surface("mcp")));
    let mut endpoints = HttpTools::new(toolbox.clone()).router();
    let mut internal = None;
    match &config.auth {
        Auth::None => {}
        Auth::Token(token) => {
            mcp = mcp.with_auth(BearerTokens::new([token.clone()]));
            endpoints = endpoints.layer(AuthLayer::new(BearerTokens::new([token.clone()])));
        }
        Auth::Jwt { issuer, jwks, hs256_secret } => {
            let jwks = match jwks {
                Some(location) => {
                    let jwks = Jwks::from_location(location).map_err(|e| format!("ENVELOPE_JWKS {location}: {e}"))?;
                    // Fetched (or read) now: a bad setting stops the server at start.
                    jwks.refresh().await.map_err(|e| format!("ENVELOPE_JWKS {location}: {e}"))?;
                    Some(jwks)
                }
                None => None,
            };
            let verifier = |resource: &str| {
                let mut verifier = JwtVerifier::new(issuer, resource);
                if let Some(jwks) = &jwks {
                    verifier = verifier.with_jwks(jwks.clone());
                }
                if let Some(secret) = hs256_secret {
                    verifier = verifier.with_hs256_secret(secret);
                }
                verifier
            };
            let resource = config.resource(address);
            let public = ProtectedResource::new(&resource)
                .with_authorization_server(issuer)
                .with_scopes(toolbox.on(&Surface::public("mcp")).scopes());
            let inner = ProtectedResource::new(internal_resource(&resource))
                .with_authorization_server(issuer)
                .with_scopes(toolbox.on(&internal_surface()).scopes());
            endpoints = endpoints
                .layer(AuthLayer::new(verifier(public.resource())).with_resource_metadata(public.metadata_url()));
            mcp = mcp.with_auth(verifier(public.resource())).with_protected_resource(public);
            // The surface's gate runs inside the auth layer, which puts the caller in place;
            // the metadata is served at the root, in its path form (RFC 9728 §3.1).
            let router = McpHttp::with_handler(tools::with_tasks(McpServer::new(toolbox)))
                .with_surface(internal_surface())
                .router()
                .layer(
                    AuthLayer::new(verifier(inner.resource())).json_rpc().with_resource_metadata(inner.metadata_url()),
                );
            internal = Some((router, inner));
        }
    }
    let mut app = mcp.router().merge(endpoints.layer(OriginLayer::loopback()));
    if let Some((router, inner)) = internal {
        app = app.nest("/internal", router).route(&inner.metadata_path(), metadata(&inner));
    }
    Ok(app)
}

/// The route serving `resource`'s metadata document at its path form, as
/// `ProtectedResource::router` serves it (that router also takes the root form, which the public
/// endpoint's document holds): `GET`/`HEAD`, `application/json`, readable from any origin;
/// another method is 405 `method_not_allowed`.
fn metadata(resource: &ProtectedResource) -> axum::routing::MethodRouter {
    let body = resource.document().to_string();
    let document = move || async move {
        ([(header::CONTENT_TYPE, "application/json"), (header::ACCESS_CONTROL_ALLOW_ORIGIN, "*")], body)
    };
    axum::routing::get(document).fallback(|method: Method| async move {
        TransportError::method_not_allowed(method.as_str(), &["GET", "HEAD"]).into_response()
    })
}

/// What the start line says about callers.
fn mode(config: &Config) -> String {
    match &config.auth {
        Auth::None => "no authentication (anonymous callers; set ENVELOPE_JWKS or ENVELOPE_JWT_HS256_SECRET \
                       with ENVELOPE_ISSUER to verify them)"
            .to_owned(),
        Auth::Token(_) => "one static bearer token (--token)".to_owned(),
        Auth::Jwt { issuer, jwks, hs256_secret } => {
            let keys = match (jwks, hs256_secret) {
                (Some(jwks), Some(_)) => format!("the JWKS {jwks} and an HS256 secret"),
                (Some(jwks), None) => format!("the JWKS {jwks}"),
                (None, _) => "an HS256 secret".to_owned(),
            };
            format!("bearer JWTs of {issuer}, verified with {keys}")
        }
    }
}

/// The `Host` names served: loopback ones on a loopback address, plus the resource URL's host.
fn hosts(config: &Config, address: SocketAddr) -> Option<AllowedHosts> {
    let host = config.resource.as_deref()?.split("://").nth(1)?.split('/').next()?;
    address.ip().is_loopback().then(|| AllowedHosts::loopback().allow(host))
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> io::Result<()> {
    // One line per call (envelope's events), not rmcp's three per stateless request; or what
    // RUST_LOG asks for. rmcp's own lines below `error` quote a request's `id` as sent, whole and
    // unescaped (`response error id=...`): left on, any client could write a line of its
    // choosing, or a megabyte, into this log. envelope's lines quote what a client sent escaped
    // and cut.
    let filter = match std::env::var("RUST_LOG") {
        Ok(directives) if !directives.trim().is_empty() => directives.parse::<Targets>().unwrap_or_else(|e| {
            eprintln!("RUST_LOG={directives:?} is not a list of target=level directives ({e}); e.g. RUST_LOG=debug");
            std::process::exit(2);
        }),
        _ => Targets::new().with_default(LevelFilter::INFO).with_target("rmcp", LevelFilter::ERROR),
    };
    tracing_subscriber::registry()
        .with(tracing_subscriber::fmt::layer().with_writer(io::stderr).with_filter(filter))
        .init();
    let args: Vec<String> = std::env::args().skip(1).collect();
    let stop = |sentence: String| -> ! {
        eprintln!("{sentence}");
        std::process::exit(2);
    };
    if args.iter().any(|a| a == "--help" || a == "-h") {
        // A closed stdout (`| head`) is no error of the server's.
        let _ = io::Write::write_all(&mut io::stdout(), format!("{USAGE}\n").as_bytes());
        return Ok(());
    }
    if let Some(other) = unknown_argument(&args) {
        stop(format!(
            "{other:?} is not an option of http_server; its options are --host, --port and --token (see --help)"
        ));
    }
    let host = setting(&args, "host", "HOST", "127.0.0.1");
    let port = setting(&args, "port", "PORT", "8080");
    let Ok(port) = port.parse::<u16>() else {
        stop(format!("--port {port:?} is not a port number; send a whole number from 0 to 65535, like --port 8080"));
    };
    let config = Config::from_env(&args).unwrap_or_else(|e| stop(e));
    let listener = tokio::net::TcpListener::bind((host.as_str(), port)).await?;
    let address = listener.local_addr()?;
    let app = app(&config, address).await.unwrap_or_else(|e| stop(e));
    eprintln!("envelope example server: callers: {}", mode(&config));
    eprintln!("plain HTTP tool endpoints: http://{address}/tools/{{name}}");
    if matches!(config.auth, Auth::Jwt { .. }) {
        eprintln!("internal MCP endpoint (scope internal, a tenant): http://{address}/internal/mcp");
    }
    println!("envelope example MCP server: http://{address}/mcp");
    server(&config, listener, address, app).await
}
