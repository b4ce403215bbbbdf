//! The resources and resource templates a server declares: listed per surface, read per caller.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use rmcp::model::{ErrorData, Resource, ResourceContents, ResourceTemplate};

use super::jsonrpc_error::{caller_refusal, error};
use super::uri_template::{UriMatch, UriTemplate};
use crate::outcome::failure::ToolError;
use crate::{Context, Envelope, Fault, Refusal, Toolbox, codes};

/// A read in progress: the contents, or the failure's envelope.
type ReadFuture = Pin<Box<dyn Future<Output = Result<Vec<ResourceContents>, Envelope>> + Send>>;

/// A declared read function, its error type turned into an envelope.
pub(crate) type ReadFn = Arc<dyn Fn(UriMatch, Context) -> ReadFuture + Send + Sync>;

/// `read` as a [`ReadFn`]: called inside the future it answers, so a panic of the call itself
/// is caught with the future's.
pub(crate) fn reader<F, Fut, E>(read: F) -> ReadFn
where
    F: Fn(UriMatch, Context) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = Result<Vec<ResourceContents>, E>> + Send + 'static,
    E: ToolError,
{
    let read = Arc::new(read);
    Arc::new(move |uri, cx| {
        let read = Arc::clone(&read);
        Box::pin(async move { read(uri, cx).await.map_err(ToolError::into_envelope) })
    })
}

/// The declared resources and templates, in the order declared.
#[derive(Clone, Default)]
pub(crate) struct Resources {
    fixed: Vec<(Resource, ReadFn)>,
    templates: Vec<(ResourceTemplate, UriTemplate, ReadFn)>,
}

impl Resources {
    /// Whether none is declared (the server then declares no `resources` capability).
    pub(crate) fn is_empty(&self) -> bool {
        self.fixed.is_empty() && self.templates.is_empty()
    }

    pub(crate) fn add(&mut self, resource: Resource, read: ReadFn) {
        self.fixed.push((resource, read));
    }

    /// `Err` with a sentence when the template is one [`UriTemplate`] does not read.
    pub(crate) fn add_template(&mut self, template: ResourceTemplate, read: ReadFn) -> Result<(), String> {
        let parsed = UriTemplate::parse(&template.uri_template)?;
        self.templates.push((template, parsed, read));
        Ok(())
    }

    /// `resources/list`: the resources the toolbox's surface shows.
    pub(crate) fn list(&self, toolbox: &Toolbox) -> Vec<Resource> {
        self.fixed.iter().filter(|(r, _)| shown(toolbox, &r.name)).map(|(r, _)| r.clone()).collect()
    }

    /// `resources/templates/list`: the templates the toolbox's surface shows.
    pub(crate) fn list_templates(&self, toolbox: &Toolbox) -> Vec<ResourceTemplate> {
        self.templates.iter().filter(|(t, ..)| shown(toolbox, &t.name)).map(|(t, ..)| t.clone()).collect()
    }

    /// `resources/read` of `uri` by `cx`: the resource of that URI, else the first template
    /// that matches it, among those the surface shows; a URI of neither is `NOT_FOUND`, as is
    /// one only a hidden resource or template has (the same bytes). Then the caller is checked
    /// as a tool's is on the surface, and the read function runs; its failure (a panic is
    /// `BACKEND_ERROR`) is answered through the code table.
    pub(crate) async fn read(
        &self,
        toolbox: &Toolbox,
        cx: Context,
        uri: &str,
    ) -> Result<Vec<ResourceContents>, ErrorData> {
        let fixed = self.fixed.iter().find(|(r, _)| r.uri == uri && shown(toolbox, &r.name));
        let found = match fixed {
            Some((_, read)) => Some((read, UriMatch { uri: uri.to_owned(), variables: Default::default() })),
            None => self.templates.iter().filter(|(t, ..)| shown(toolbox, &t.name)).find_map(|(_, parsed, read)| {
                let variables = parsed.matches(uri)?;
                Some((read, UriMatch { uri: uri.to_owned(), variables }))
            }),
        };
        let on_the_wire = |envelope: Envelope| error(&envelope.with_code_prefix(toolbox.code_prefix()), "uri", uri);
        let Some((read, matched)) = found else {
            return Err(on_the_wire(unknown(uri)));
        };
        if let Some(refused) = caller_refusal(toolbox, &cx, uri) {
            return Err(on_the_wire(refused));
        }
        match crate::call::unwind::CatchUnwind(read(matched, cx)).await {
            Ok(Ok(contents)) => Ok(contents),
            Ok(Err(envelope)) => Err(on_the_wire(envelope)),
            Err(()) => Err(on_the_wire(Fault::backend("reading the resource").into())),
        }
    }
}

/// Whether the toolbox's surface (if any) shows the resource or template `name`.
fn shown(toolbox: &Toolbox, name: &str) -> bool {
    toolbox.surface().is_none_or(|s| s.shows_resource(name))
}

/// `NOT_FOUND` for a URI no shown resource or template has (SEP-2164: `-32602`). Names no
/// resource, so a hidden one's URI reads exactly as an unknown one.
fn unknown(uri: &str) -> Envelope {
    let refusal = Refusal::parameter("uri")
        .rejected(uri)
        .reason("is not a resource of this server")
        .accepted("a URI resources/list lists, or one a template of resources/templates/list expands to")
        .fix("Read a URI from those lists.")
        .build()
        .with_code(codes::NOT_FOUND);
    Envelope::from(refusal)
}
