using System.Diagnostics;
using System.Threading.Tasks.Sources;
using Salsa.Ccr.Internal;

namespace Salsa.Ccr;

/// <summary>A condition a rank waits for; a struct so each wait site inlines its own check.</summary>
internal interface IWaitCondition
{
    bool IsSatisfied();
}

// Design: one waiter per rank. Only its rank waits on it; any rank may wake it. `_state` says
// whether the rank is running, blocked on `_gate`, or suspended on `_core` (task execution). A
// waiter first spins (when the group is not oversubscribed), then yields, then announces itself
// (Exchange on `_state`, a full fence) and re-checks its condition before sleeping; a waker publishes
// its data, fences, and then reads `_state` — so either the waiter sees the data or the waker sees
// the waiter, never neither (no lost wake-up). The CAS back to Running elects exactly one waker to
// pulse or complete. Suspension resumes through the captured SynchronizationContext: on a dispatcher
// thread that is the rank's own queue, so no thread blocks.
internal sealed class RankWaiter : IValueTaskSource
{
    private const int Running = 0;
    private const int Blocked = 1;
    private const int Suspended = 2;
    private const int YieldCount = 16;

    private readonly SpmdGroup _group;
    private readonly object _gate = new();
    private ManualResetValueTaskSourceCore<bool> _core = new() { RunContinuationsAsynchronously = true };
    private PaddedInt _state;

    public RankWaiter(SpmdGroup group)
    {
        _group = group;
    }

    /// <summary>Wakes the rank if it sleeps. The caller has published what the rank waits for.</summary>
    public void Wake()
    {
        Interlocked.MemoryBarrier();
        var state = Volatile.Read(ref _state.Value);
        if (state == Running || Interlocked.CompareExchange(ref _state.Value, Running, state) != state)
        {
            return;
        }

        if (state == Blocked)
        {
            lock (_gate)
            {
                Monitor.Pulse(_gate);
            }
        }
        else
        {
            _core.SetResult(true);
        }
    }

    /// <summary>Blocks the calling thread until the condition holds (thread execution).</summary>
    public void Wait<TCondition>(TCondition condition)
        where TCondition : struct, IWaitCondition
    {
        if (condition.IsSatisfied())
        {
            return;
        }

        if (!_group.Oversubscribed)
        {
            var start = Stopwatch.GetTimestamp();
            var spins = 0;
            while (true)
            {
                Thread.SpinWait(1);
                if (condition.IsSatisfied())
                {
                    return;
                }

                // Reading the clock costs ~20 ns; look at it every 64 pauses.
                if ((++spins & 63) == 0 && Stopwatch.GetTimestamp() - start > _group.SpinTicks)
                {
                    break;
                }
            }
        }

        for (var i = 0; i < YieldCount; i++)
        {
            _group.ThrowIfAborted();
            Thread.Yield();
            if (condition.IsSatisfied())
            {
                return;
            }
        }

        while (true)
        {
            _group.ThrowIfAborted();
            Interlocked.Exchange(ref _state.Value, Blocked);
            if (condition.IsSatisfied() || _group.IsAborted)
            {
                Volatile.Write(ref _state.Value, Running);
                _group.ThrowIfAborted();
                return;
            }

            lock (_gate)
            {
                while (Volatile.Read(ref _state.Value) == Blocked)
                {
                    Monitor.Wait(_gate);
                }
            }

            if (condition.IsSatisfied())
            {
                return;
            }
        }
    }

    /// <summary>Waits until the condition holds, suspending the rank rather than blocking (task execution).</summary>
    public ValueTask WaitAsync<TCondition>(TCondition condition)
        where TCondition : struct, IWaitCondition
    {
        if (condition.IsSatisfied())
        {
            return default;
        }

        if (_group.Execution == SpmdExecution.Threads)
        {
            Wait(condition);
            return default;
        }

        return WaitSuspendingAsync(condition);
    }

    [System.Runtime.CompilerServices.AsyncMethodBuilder(typeof(System.Runtime.CompilerServices.PoolingAsyncValueTaskMethodBuilder))]
    private async ValueTask WaitSuspendingAsync<TCondition>(TCondition condition)
        where TCondition : struct, IWaitCondition
    {
        while (!condition.IsSatisfied())
        {
            _group.ThrowIfAborted();
            await Suspend(condition);
        }
    }

    private ValueTask Suspend<TCondition>(TCondition condition)
        where TCondition : struct, IWaitCondition
    {
        _core.Reset();
        Interlocked.Exchange(ref _state.Value, Suspended);
        if ((condition.IsSatisfied() || _group.IsAborted) &&
            Interlocked.CompareExchange(ref _state.Value, Running, Suspended) == Suspended)
        {
            return default;
        }

        // Either still waiting, or a waker already claimed the suspension and will complete it.
        return new ValueTask(this, _core.Version);
    }

    /// <summary>Wakes the rank whatever it waits for (abort).</summary>
    public void ForceWake() => Wake();

    void IValueTaskSource.GetResult(short token) => _core.GetResult(token);

    ValueTaskSourceStatus IValueTaskSource.GetStatus(short token) => _core.GetStatus(token);

    void IValueTaskSource.OnCompleted(Action<object?> continuation, object? state, short token, ValueTaskSourceOnCompletedFlags flags) =>
        _core.OnCompleted(continuation, state, token, flags);
}
