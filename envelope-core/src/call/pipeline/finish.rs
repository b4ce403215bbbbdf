//! Finishing, the one exit: an envelope given its code prefix and wire format, its outcome
//! recorded, its `warning` and `provenance` added.

use std::future::Future;
use std::pin::Pin;

use super::run::{Deferred, Started};
use crate::call::registry::Toolbox;

use crate::call::audit::Governed;
use crate::outcome::envelope::Envelope;

impl Toolbox {
    /// An envelope as this toolbox answers it: its code prefix and wire format applied. The one
    /// exit of every reply: each public method that answers an envelope, the HTTP endpoints,
    /// the MCP approval retry and the provider results pass through it.
    pub(crate) fn on_the_wire(&self, envelope: Envelope) -> Envelope {
        if self.wire_as_is() {
            return envelope;
        }
        envelope.with_code_prefix(self.prefix).with_wire_format(self.format)
    }

    /// Whether [`on_the_wire`](Self::on_the_wire) leaves an envelope as it is: no code prefix,
    /// the envelope wire format.
    fn wire_as_is(&self) -> bool {
        self.prefix.is_none() && self.format == crate::outcome::wire::WireFormat::Envelope
    }

    /// A call's envelope as this toolbox answers it: [`on_the_wire`](Self::on_the_wire), then
    /// its outcome recorded and its `warning` and `provenance` added.
    pub(super) async fn finished(&self, call: Option<&Governed>, envelope: Envelope) -> Envelope {
        let write = match Self::recorded(call, self.on_the_wire(envelope)) {
            Ok(envelope) => return envelope,
            Err(write) => write,
        };
        write.await
    }

    /// `envelope` finished by `call` ([`Governed::finish`]; none: as it is): `Ok` at once when
    /// there is no record to write, else `Err` with the write to await, boxed (it is large and
    /// rare, and the future awaiting it stays small).
    #[allow(clippy::type_complexity)]
    pub(super) fn recorded(
        call: Option<&Governed>,
        envelope: Envelope,
    ) -> Result<Envelope, Pin<Box<dyn Future<Output = Envelope> + Send + '_>>> {
        match call {
            None => Ok(envelope),
            Some(call) => call.finish_now(envelope).map_err(|envelope| Box::pin(call.finish(envelope)) as _),
        }
    }

    /// What [`dispatch`](Self::dispatch) answers for a started call: a sync body left
    /// (`leave_body`) with what the toolbox adds once it ran, else the envelope
    /// [`finished`](Self::finished): `Ok` at once, or `Err` with its record's write to await
    /// (boxed, holding `call`).
    #[allow(clippy::type_complexity)]
    pub(super) fn finishing(
        &self,
        started: Started,
        call: Option<Governed>,
        leave_body: bool,
    ) -> Result<Started, Pin<Box<dyn Future<Output = Envelope> + Send + 'static>>> {
        // Nothing to add: the call's envelope, or its body left, is the answer as it is.
        if call.is_none() && self.wire_as_is() {
            return Ok(match started {
                Started::Body(body) if !leave_body => Started::Done(body.run()),
                started => started,
            });
        }
        let envelope = match started {
            Started::Body(body) if leave_body => {
                return Ok(Started::Body(Deferred { prefix: self.prefix, format: self.format, call, ..body }));
            }
            started => self.on_the_wire(started.done()),
        };
        let Some(call) = call else { return Ok(Started::Done(envelope)) };
        match call.finish_now(envelope) {
            Ok(envelope) => Ok(Started::Done(envelope)),
            Err(envelope) => Err(Box::pin(async move { call.finish(envelope).await })),
        }
    }
}
