using System.Runtime.ExceptionServices;

namespace Salsa.Ccr;

/// <summary>Posts continuations back to a <see cref="DispatcherQueue"/>.</summary>
internal sealed class DispatcherSynchronizationContext(DispatcherQueue queue) : SynchronizationContext
{
    public DispatcherQueue Queue { get; } = queue;

    public override void Post(SendOrPostCallback d, object? state)
    {
        // An await completing on one of this dispatcher's threads resumes next on the same thread.
        var task = new CallbackTask(Queue, d, state);
        if (Queue.Policy == QueuePolicy.Unbounded && !Queue.IsClosed && Queue.Dispatcher.TryPlaceLocal(task))
        {
            return;
        }

        if (!Queue.TryEnqueue(task))
        {
            // A closed queue cannot run the continuation; running it elsewhere lets awaiting code
            // observe the cancellation instead of hanging forever.
            ThreadPool.UnsafeQueueUserWorkItem(static s => s.d(s.state), (d, state), preferLocal: false);
        }
    }

    public override void Send(SendOrPostCallback d, object? state)
    {
        if (DispatcherQueue.Current == Queue)
        {
            d(state);
            return;
        }

        using var done = new ManualResetEventSlim();
        Exception? failure = null;
        Post(_ =>
        {
            try
            {
                d(state);
            }
#pragma warning disable CA1031 // Rethrown on the sending thread below.
            catch (Exception exception)
#pragma warning restore CA1031
            {
                failure = exception;
            }
            finally
            {
                done.Set();
            }
        }, null);
        done.Wait();
        if (failure is not null)
        {
            ExceptionDispatchInfo.Capture(failure).Throw();
        }
    }

    public override SynchronizationContext CreateCopy() => this;
}
