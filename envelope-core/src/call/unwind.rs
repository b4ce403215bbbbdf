//! A future whose panic is caught: the one catch-unwind future of the call wing (the tool's
//! body, the audit sink's write, the policy hook's answer), as tower-http's `CatchPanic` does
//! over `AssertUnwindSafe(future).catch_unwind()`.

use std::future::Future;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::pin::Pin;
use std::task::{Context, Poll};

/// `F`, polled with a panic caught: `Ok` with its output, or `Err(())` when a poll panicked
/// (the future is not polled again).
pub(crate) struct CatchUnwind<F>(pub(crate) F);

impl<F: Future + Unpin> Future for CatchUnwind<F> {
    type Output = Result<F::Output, ()>;
    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        match catch_unwind(AssertUnwindSafe(|| Pin::new(&mut self.0).poll(cx))) {
            Ok(Poll::Ready(output)) => Poll::Ready(Ok(output)),
            Ok(Poll::Pending) => Poll::Pending,
            Err(_) => Poll::Ready(Err(())),
        }
    }
}
