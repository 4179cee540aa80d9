using System.Globalization;

namespace Salsa.Hosting.Scheduling;

/// <summary>How much one tenant, and all of them, may ask of a <see cref="TenantScheduler{T}"/>.</summary>
/// <param name="Slots">Items running at once.</param>
/// <param name="MaxQueued">Items waiting, all tenants together.</param>
/// <param name="MaxQueuedPerTenant">Items one tenant may have waiting.</param>
/// <param name="MaxRunningPerTenant">Slots one tenant may hold at once.</param>
/// <param name="Spare">
/// Slots beyond <paramref name="Slots"/> that only a tenant holding none may take: while every slot
/// is held (a tenant alone holds them all), another tenant's item still starts at once, beside them,
/// instead of waiting for a long item to end.
/// </param>
public sealed record TenantShares(int Slots, int MaxQueued, int MaxQueuedPerTenant, int MaxRunningPerTenant, int Spare = 0)
{
    /// <summary>Every count at least 1 (no spare below 0), and no tenant's share above the whole.</summary>
    public TenantShares Normalized() => new(
        Math.Max(Slots, 1),
        Math.Max(MaxQueued, 1),
        Math.Clamp(MaxQueuedPerTenant, 1, Math.Max(MaxQueued, 1)),
        Math.Clamp(MaxRunningPerTenant, 1, Math.Max(Slots, 1)),
        Math.Max(Spare, 0));
}

/// <summary>Why a <see cref="TenantScheduler{T}"/> refused an item.</summary>
public enum SchedulerRefusal
{
    None,

    /// <summary>The tenant has <see cref="TenantShares.MaxQueuedPerTenant"/> items waiting.</summary>
    TenantQueueFull,

    /// <summary>All tenants together have <see cref="TenantShares.MaxQueued"/> items waiting.</summary>
    QueueFull,
}

/// <summary>
/// Admits work per tenant and starts it in turn: each tenant has a bounded queue of its own beside
/// the bound on all of them, and a free slot goes to the waiting tenant served least recently — one
/// not served yet first — skipping any that hold their <see cref="TenantShares.MaxRunningPerTenant"/>
/// already; oldest item first within a tenant. So one tenant that fills its share is refused on its
/// own, the others' starts are still accepted, and theirs run next, not after its backlog. The slots
/// are work-conserving: a tenant alone uses all it may hold. When all are held, a tenant holding
/// none takes a <see cref="TenantShares.Spare"/> slot, so no tenant waits for another's long item.
/// </summary>
/// <remarks>
/// Design: one lock guards every count and queue; admission, a start and a completion each take it
/// once, for a few list operations and a scan of the tenants waiting (the work they schedule lasts
/// milliseconds to minutes). A start is
/// decided under the lock and made after it (<c>start</c> runs outside it, so it may block or call
/// back in); no callback is made with the lock held, so nothing can deadlock on it.
/// </remarks>
public sealed class TenantScheduler<T>(TenantShares shares, Action<T> start)
    where T : class
{
    private readonly TenantShares _shares = shares.Normalized();
    private readonly Lock _lock = new();
    private readonly Dictionary<string, Tenant> _tenants = new(StringComparer.Ordinal);
    private readonly LinkedList<Tenant> _turn = []; // tenants with items waiting, in the order they came
    private long _served; // starts so far: a tenant's last one orders the turns
    private int _queued;
    private int _running;

    public TenantShares Shares => _shares;

    /// <summary>Items waiting, all tenants together.</summary>
    public int Queued
    {
        get
        {
            lock (_lock)
            {
                return _queued;
            }
        }
    }

    /// <summary>Items holding a slot.</summary>
    public int Running
    {
        get
        {
            lock (_lock)
            {
                return _running;
            }
        }
    }

    /// <summary>Queues <paramref name="item"/> for <paramref name="tenant"/>, or says why not; it starts at once when its turn allows.</summary>
    public SchedulerRefusal TryEnqueue(string tenant, T item)
    {
        ArgumentNullException.ThrowIfNull(tenant);
        ArgumentNullException.ThrowIfNull(item);
        lock (_lock)
        {
            var state = TenantOf(tenant);
            if (_queued >= _shares.MaxQueued || state.Waiting.Count >= _shares.MaxQueuedPerTenant)
            {
                Forget(state);
                return _queued >= _shares.MaxQueued ? SchedulerRefusal.QueueFull : SchedulerRefusal.TenantQueueFull;
            }

            Add(state, item);
        }

        StartWhatCan();
        return SchedulerRefusal.None;
    }

    /// <summary>
    /// Queues work accepted before — a run resumed after a restart — whatever the shares: accepted work
    /// is never refused; it only counts against the tenant's share of what comes next.
    /// </summary>
    public void Requeue(string tenant, T item)
    {
        ArgumentNullException.ThrowIfNull(tenant);
        ArgumentNullException.ThrowIfNull(item);
        lock (_lock)
        {
            Add(TenantOf(tenant), item);
        }

        StartWhatCan();
    }

    /// <summary>Takes a waiting item out (cancelled before it started); false when it has started or was never queued.</summary>
    public bool TryRemove(string tenant, T item)
    {
        lock (_lock)
        {
            if (!_tenants.TryGetValue(tenant, out var state) || !state.Waiting.Remove(item))
            {
                return false;
            }

            _queued--;
            if (state.Waiting.Count == 0 && state.Node.List is not null)
            {
                _turn.Remove(state.Node);
            }

            Forget(state);
            return true;
        }
    }

    /// <summary>An item of <paramref name="tenant"/> that was started has ended: its slot goes to the next in turn.</summary>
    public void Completed(string tenant)
    {
        lock (_lock)
        {
            var state = _tenants[tenant];
            state.Running--;
            _running--;
            Forget(state);
        }

        StartWhatCan();
    }

    /// <summary>The refusal's message: which bound, its value and the key that sets it.</summary>
    public string Describe(SchedulerRefusal refusal, string what, string perTenantKey, string queueKey) => refusal switch
    {
        SchedulerRefusal.TenantQueueFull => string.Create(CultureInfo.InvariantCulture,
            $"You have as many {what} waiting as one tenant may queue here: {_shares.MaxQueuedPerTenant:N0} ({perTenantKey}); other tenants' {what} are still taken."),
        SchedulerRefusal.QueueFull => string.Create(CultureInfo.InvariantCulture, $"The queue is full ({_shares.MaxQueued:N0} {what} waiting; {queueKey})."),
        _ => string.Empty,
    };

    private void StartWhatCan()
    {
        while (true)
        {
            T item;
            lock (_lock)
            {
                // Past the slots, only the spare ones, and only for a tenant that holds none.
                if (_running >= _shares.Slots + _shares.Spare || Next(spareOnly: _running >= _shares.Slots) is not { } state)
                {
                    return;
                }

                item = state.Waiting.First!.Value;
                state.Waiting.RemoveFirst();
                _queued--;
                state.Running++;
                _running++;
                state.LastServed = ++_served; // its next item waits for the other tenants' turns
                if (state.Waiting.Count == 0)
                {
                    _turn.Remove(state.Node);
                }
            }

            start(item);
        }
    }

    private void Add(Tenant state, T item)
    {
        state.Waiting.AddLast(item);
        _queued++;
        if (state.Node.List is null)
        {
            _turn.AddLast(state.Node);
        }
    }

    // Of the waiting tenants that may hold one more slot (with spareOnly, of those holding none), the
    // one served least recently (first come on a tie).
    private Tenant? Next(bool spareOnly)
    {
        Tenant? next = null;
        for (var node = _turn.First; node is not null; node = node.Next)
        {
            var running = node.Value.Running;
            if (running < _shares.MaxRunningPerTenant && (!spareOnly || running == 0) && (next is null || node.Value.LastServed < next.LastServed))
            {
                next = node.Value;
            }
        }

        return next;
    }

    private Tenant TenantOf(string tenant)
    {
        if (!_tenants.TryGetValue(tenant, out var state))
        {
            state = new Tenant(tenant);
            _tenants[tenant] = state;
        }

        return state;
    }

    // A tenant with nothing waiting or running is dropped, so the table holds only active tenants.
    private void Forget(Tenant state)
    {
        if (state.Running == 0 && state.Waiting.Count == 0)
        {
            _tenants.Remove(state.Name);
        }
    }

    private sealed class Tenant
    {
        public Tenant(string name)
        {
            Name = name;
            Node = new LinkedListNode<Tenant>(this);
        }

        public string Name { get; }

        public LinkedListNode<Tenant> Node { get; }

        public LinkedList<T> Waiting { get; } = [];

        public int Running { get; set; }

        /// <summary>When it last got a slot (0: not while it has been active).</summary>
        public long LastServed { get; set; }
    }
}
