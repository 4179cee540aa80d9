using Salsa.Ccr.Internal;

namespace Salsa.Ccr;

// Design: a reader/writer gate over handler tasks (CCR's Interleave). Receivers in the three groups
// commit freely while the interleave is active; the task each fires is wrapped in a Gate. When a
// Gate reaches the dispatcher it asks for admission under `_gate`: a concurrent handler runs unless
// an exclusive one runs or waits (writers first, so they cannot starve); an exclusive handler runs
// only alone. Gates not admitted wait in FIFO queues and are re-posted, already admitted, when the
// running handler finishes (async handlers finish when their task does). The teardown receiver
// commits once and stops every other receiver; its gate waits until every handler already accepted
// has finished, then runs alone, last, and retires the interleave. `_gate` is a leaf lock: nothing
// else is taken while holding it.
/// <summary>Concurrent, exclusive and teardown receivers sharing one exclusion rule.</summary>
public sealed class Interleave : ArbiterTask, IArbiterParent
{
    private readonly ArbiterTask[] _teardown;
    private readonly ArbiterTask[] _exclusive;
    private readonly ArbiterTask[] _concurrent;
    private readonly object _gate = new();
    private readonly Queue<Gate> _waitingExclusive = new();
    private readonly Queue<Gate> _waitingConcurrent = new();
    private Gate? _waitingTeardown;
    private int _runningConcurrent;
    private bool _exclusiveRunning;
    private int _accepted;
    private bool _tearingDown;
    private bool _retireWhenIdle;

    internal Interleave(ArbiterTask[] teardown, ArbiterTask[] exclusive, ArbiterTask[] concurrent)
        : base(persist: true)
    {
        if (Array.Exists(teardown, t => t.Persist))
        {
            throw new ArgumentException("Teardown receivers must be one-shot.", nameof(teardown));
        }

        _teardown = teardown;
        _exclusive = exclusive;
        _concurrent = concurrent;
    }

    /// <summary>Handlers running now, for tests and diagnostics.</summary>
    public int RunningCount
    {
        get
        {
            lock (_gate)
            {
                return _runningConcurrent + (_exclusiveRunning ? 1 : 0);
            }
        }
    }

    private protected override void OnActivate()
    {
        foreach (var child in _teardown.Concat(_exclusive).Concat(_concurrent))
        {
            child.ActivateAsChild(Queue!, this);
        }
    }

    private protected override void OnFinished(bool cancelled)
    {
        foreach (var child in _teardown.Concat(_exclusive).Concat(_concurrent))
        {
            child.Deactivate(cancelled);
        }
    }

    bool IArbiterParent.TryCommitChild(ArbiterTask child)
    {
        var teardown = Array.IndexOf(_teardown, child) >= 0;
        lock (_gate)
        {
            // Decided and counted under one lock: once the teardown is accepted no other handler is,
            // and every handler accepted before it is counted, so the teardown waits for it.
            if (!IsActive || _tearingDown)
            {
                return false;
            }

            RaceProbe.At(RaceProbe.InterleaveCommit);
            _tearingDown = teardown;
            _accepted++;
        }

        if (teardown)
        {
            // No more commits: stop the other receivers now; accepted handlers still run.
            foreach (var other in _teardown.Concat(_exclusive).Concat(_concurrent))
            {
                if (!ReferenceEquals(other, child))
                {
                    other.Deactivate();
                }
            }
        }

        return true;
    }

    ITask IArbiterParent.WrapChildTask(ArbiterTask child, ITask task)
    {
        var kind = Array.IndexOf(_concurrent, child) >= 0 ? GateKind.Concurrent
            : Array.IndexOf(_exclusive, child) >= 0 ? GateKind.Exclusive
            : GateKind.Teardown;
        return Wrap(new Gate(this, kind, task));
    }

    bool IArbiterParent.TryRouteChildFault(Exception exception) => TryRouteFault(exception);

    private bool Admit(Gate gate)
    {
        lock (_gate)
        {
            if (gate.Kind == GateKind.Concurrent)
            {
                if (!_exclusiveRunning && _waitingExclusive.Count == 0)
                {
                    _runningConcurrent++;
                    return true;
                }

                _waitingConcurrent.Enqueue(gate);
                return false;
            }

            if (gate.Kind == GateKind.Teardown)
            {
                if (CanRunTeardown())
                {
                    _exclusiveRunning = true;
                    return true;
                }

                // Held aside, not in the exclusive queue: handlers accepted before it must still
                // be admitted and finish first.
                _waitingTeardown = gate;
                return false;
            }

            if (!_exclusiveRunning && _runningConcurrent == 0)
            {
                _exclusiveRunning = true;
                return true;
            }

            _waitingExclusive.Enqueue(gate);
            return false;
        }
    }

    private bool CanRunTeardown() => !_exclusiveRunning && _runningConcurrent == 0 && _accepted == 1;

    /// <summary>A gate's handler ran to its end: its running slot frees.</summary>
    private void Finished(Gate gate) => Settle(gate, held: true);

    /// <summary>
    /// A gate its queue dropped (a discard policy, or the queue closed): the handler never runs, but
    /// it was accepted — and holds a running slot if it had been admitted — so it is settled the same
    /// way, or the teardown would wait for it, and an exclusive slot stay taken, for ever.
    /// </summary>
    private void Dropped(Gate gate) => Settle(gate, held: gate.Admitted);

    private void Settle(Gate gate, bool held)
    {
        List<Gate>? admitted = null;
        bool retire;
        lock (_gate)
        {
            _accepted--;
            if (held)
            {
                if (gate.Kind == GateKind.Concurrent)
                {
                    _runningConcurrent--;
                }
                else
                {
                    _exclusiveRunning = false;
                }
            }

            // A teardown that ran or was dropped ends the interleave once nothing accepted is left.
            _retireWhenIdle |= gate.Kind == GateKind.Teardown;
            retire = _retireWhenIdle && _accepted == 0;
            if (!retire)
            {
                if (_waitingExclusive.Count > 0)
                {
                    if (!_exclusiveRunning && _runningConcurrent == 0)
                    {
                        _exclusiveRunning = true;
                        (admitted ??= []).Add(_waitingExclusive.Dequeue());
                    }
                }
                else if (!_exclusiveRunning)
                {
                    while (_waitingConcurrent.Count > 0)
                    {
                        _runningConcurrent++;
                        (admitted ??= []).Add(_waitingConcurrent.Dequeue());
                    }
                }

                if (_waitingTeardown is { } teardown && CanRunTeardown())
                {
                    _waitingTeardown = null;
                    _exclusiveRunning = true;
                    (admitted ??= []).Add(teardown);
                }
            }
        }

        if (retire)
        {
            Deactivate();
            return;
        }

        if (admitted is not null)
        {
            foreach (var next in admitted)
            {
                next.Admitted = true;
                if (!Queue!.Enqueue(next))
                {
                    // Refused (a discard policy, or the queue closed): settle it as dropped.
                    Dropped(next);
                }
            }
        }
    }

    private enum GateKind
    {
        Concurrent,
        Exclusive,
        Teardown,
    }

    private sealed class Gate(Interleave owner, GateKind kind, ITask inner) : ITask, IFaultRoutingTask, ICancellable
    {
        public GateKind Kind { get; } = kind;

        private Interleave Owner { get; } = owner;

        public bool Admitted { get; set; }

        public void Execute()
        {
            if (!Admitted && !Owner.Admit(this))
            {
                return;
            }

            Task? running;
            try
            {
                running = inner is ITrackedTask tracked ? tracked.ExecuteTracked() : Run(inner);
            }
            catch
            {
                Owner.Finished(this);
                throw;
            }

            if (running is null)
            {
                Owner.Finished(this);
                return;
            }

            running.ContinueWith(static (t, s) =>
            {
                var gate = (Gate)s!;
                gate.Owner.Finished(gate);
                if (t.IsFaulted)
                {
                    var exception = t.Exception!.InnerExceptions.Count == 1 ? t.Exception.InnerException! : t.Exception;
                    if (!gate.TryRouteFault(exception))
                    {
                        gate.Owner.Queue!.RouteFault(null, exception);
                    }
                }
            }, this, CancellationToken.None, TaskContinuationOptions.ExecuteSynchronously, TaskScheduler.Default);
        }

        /// <summary>Its queue dropped it: the handler will not run.</summary>
        public void Cancel() => Owner.Dropped(this);

        public bool TryRouteFault(Exception exception) =>
            inner is IFaultRoutingTask routing ? routing.TryRouteFault(exception) : Owner.TryRouteFault(exception);

        private static Task? Run(ITask task)
        {
            task.Execute();
            return null;
        }
    }
}
