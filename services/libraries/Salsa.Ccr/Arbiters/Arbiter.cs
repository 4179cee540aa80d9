namespace Salsa.Ccr;

/// <summary>
/// Builds arbiters, the way CCR's <c>Arbiter</c> class does. Activate them on a queue with
/// <see cref="DispatcherQueue.Activate"/> or <see cref="Activate"/>.
/// </summary>
public static class Arbiter
{
    /// <summary>Runs <paramref name="handler"/> with each (persistent) or the next (one-shot) message of <paramref name="port"/>.</summary>
    public static Receiver<T> Receive<T>(bool persist, Port<T> port, Action<T> handler) => new(persist, port, handler);

    /// <summary>Async handler: under an Interleave, it counts as running until its task completes.</summary>
    public static Receiver<T> Receive<T>(bool persist, Port<T> port, Func<T, Task> handler) => new(persist, port, handler);

    /// <summary>Runs <paramref name="handler"/> once <paramref name="count"/> messages (≥ 1) are in <paramref name="port"/>.</summary>
    public static MultipleItemReceiver<T> MultipleItemReceive<T>(bool persist, Port<T> port, int count, Action<T[]> handler) =>
        new(persist, port, count, handler);

    /// <summary>
    /// Scatter–gather: runs <paramref name="handler"/> once, when <paramref name="count"/> items have
    /// arrived on <paramref name="ports"/>' two ports together, with the successes and the failures
    /// (CCR's MultipleItemReceive over a PortSet). One-shot.
    /// </summary>
    public static MultipleItemGather<T0, T1> MultipleItemReceive<T0, T1>(PortSet<T0, T1> ports, int count, Action<T0[], T1[]> handler)
    {
        ArgumentNullException.ThrowIfNull(ports);
        ArgumentNullException.ThrowIfNull(handler);
        return new(ports, count, new Action<(T0[], T1[])>(results => handler(results.Item1, results.Item2)));
    }

    /// <summary>Runs <paramref name="handler"/> with one message from each port, in port order.</summary>
    public static MultiplePortReceiver<T> MultiplePortReceive<T>(bool persist, Port<T>[] ports, Action<T[]> handler) =>
        new(persist, ports, handler);

    /// <summary>Runs <paramref name="handler"/> with one message from each of two ports of different types.</summary>
    /// <remarks>
    /// Atomic: nothing is taken unless both items are. Two joins on the same ports are not served
    /// fairly: which one takes a given pair is unspecified, and one may never get any.
    /// </remarks>
    public static JoinedReceiver<T0, T1> JoinedReceive<T0, T1>(bool persist, Port<T0> port0, Port<T1> port1, Action<T0, T1> handler)
    {
        ArgumentNullException.ThrowIfNull(handler);
        return new(persist, port0, port1, new Action<(T0, T1)>(pair => handler(pair.Item1, pair.Item2)));
    }

    /// <summary>Runs exactly one of the one-shot <paramref name="branches"/>: the first whose messages arrive.</summary>
    public static Choice Choice(params ArbiterTask[] branches) => new(branches);

    /// <summary>Runs the handler for whichever of a port set's two messages arrives first.</summary>
    public static Choice Choice<T0, T1>(PortSet<T0, T1> ports, Action<T0> handler0, Action<T1> handler1)
    {
        ArgumentNullException.ThrowIfNull(ports);
        return new([Receive(false, ports.P0, handler0), Receive(false, ports.P1, handler1)]);
    }

    /// <summary>
    /// Concurrent handlers may overlap each other; exclusive handlers run alone; the teardown handler
    /// runs once, after every handler already accepted, and retires the interleave.
    /// </summary>
    /// <remarks>
    /// Once the teardown is accepted no other handler is, under any number of concurrent posters. A
    /// handler its queue drops (a discard policy) is accounted for, so the teardown still runs. One-shot
    /// receivers and choices inside a group fire once. Exclusive handlers never overlap, but with
    /// several dispatcher threads they need not run in post order; run on a one-thread dispatcher for that.
    /// </remarks>
    public static Interleave Interleave(TeardownReceiverGroup teardown, ExclusiveReceiverGroup exclusive, ConcurrentReceiverGroup concurrent)
    {
        ArgumentNullException.ThrowIfNull(teardown);
        ArgumentNullException.ThrowIfNull(exclusive);
        ArgumentNullException.ThrowIfNull(concurrent);
        return new(teardown.Receivers, exclusive.Receivers, concurrent.Receivers);
    }

    /// <summary>A task that runs a handler without reading any port (CCR's FromHandler).</summary>
    public static ITask FromHandler(Action handler)
    {
        ArgumentNullException.ThrowIfNull(handler);
        return new SpawnTask(handler);
    }

    /// <summary>Activates arbiters on <paramref name="queue"/>.</summary>
    public static void Activate(DispatcherQueue queue, params ArbiterTask[] arbiters)
    {
        ArgumentNullException.ThrowIfNull(queue);
        queue.Activate(arbiters);
    }
}
