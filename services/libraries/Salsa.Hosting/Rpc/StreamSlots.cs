using System.Diagnostics.Metrics;
using System.Globalization;
using Microsoft.AspNetCore.Http;
using Microsoft.Extensions.Options;
using Salsa.Hosting.Errors;
using Salsa.Hosting.Security;

namespace Salsa.Hosting.Rpc;

/// <summary>
/// The open streams of a process — server-sent events and gRPC server streams, each holding a
/// connection (or an HTTP/2 stream) for as long as it lasts — counted per credential, per tenant
/// and in all (<see cref="ServiceLimits.MaxStreamsPerKey"/>, <see cref="ServiceLimits.MaxStreamsPerTenant"/>,
/// <see cref="ServiceLimits.StreamLimit"/>). A stream past any of them is refused before it starts
/// (<see cref="QueueFullException"/>: 429 / RESOURCE_EXHAUSTED with a retry hint). The service key
/// (a deployment's own processes) counts only in the process's total. Open streams are the
/// <c>salsa.streams.open</c> instrument (an up-down counter), refusals <c>salsa.streams.refused</c>.
/// </summary>
public sealed class StreamSlots
{
    private readonly ServiceLimits _limits;
    private readonly UpDownCounter<int>? _opened;
    private readonly Counter<long>? _refused;
    private readonly Dictionary<string, int> _byKey = new(StringComparer.Ordinal);
    private readonly Dictionary<string, int> _byTenant = new(StringComparer.Ordinal);
    private readonly Lock _gate = new();
    private int _open;

    public StreamSlots(IOptions<ServiceLimits> options, IMeterFactory? meterFactory = null)
    {
        ArgumentNullException.ThrowIfNull(options);
        _limits = options.Value;
        var meter = meterFactory?.Create(SalsaHosting.MeterName); // the factory's: disposed with the host
        _opened = meter?.CreateUpDownCounter<int>("salsa.streams.open", description: "Streams (server-sent events, gRPC server streams) open now.");
        _refused = meter?.CreateCounter<long>("salsa.streams.refused", description: "Streams refused at a cap (per key, per tenant, in all).");
    }

    /// <summary>The process's open-file limit, read at start (<c>ulimit -n</c>); <see cref="long.MaxValue"/> where none is known.</summary>
    public static long OpenFileLimit { get; } = ReadOpenFileLimit();

    /// <summary>Streams the process may hold, every caller together.</summary>
    public int Limit => _limits.StreamLimit(OpenFileLimit);

    /// <summary>Streams open now.</summary>
    public int Open
    {
        get
        {
            lock (_gate)
            {
                return _open;
            }
        }
    }

    /// <summary>A slot for the stream the current request (its caller) opens; dispose it when the stream ends.</summary>
    public IDisposable Acquire(HttpContext context)
    {
        ArgumentNullException.ThrowIfNull(context);
        var holder = CallerClaims.HolderOf(context.User);
        var tenant = CallerClaims.TenantOf(context.User);
        return holder is null or CallerClaims.ServiceHolder ? Acquire(null, null) : Acquire(holder, tenant);
    }

    /// <summary>A slot for a stream of <paramref name="holder"/> acting for <paramref name="tenant"/> (both null: counted only in all).</summary>
    public IDisposable Acquire(string? holder, string? tenant)
    {
        lock (_gate)
        {
            if (_open >= Limit)
            {
                throw Refused($"This service holds {_open:N0} streams open, the most it holds at once ({ServiceLimits.Section}:MaxStreams)");
            }

            if (tenant is not null && _byTenant.GetValueOrDefault(tenant) >= _limits.MaxStreamsPerTenant)
            {
                throw Refused($"Your tenant holds {_limits.MaxStreamsPerTenant:N0} streams open, the most one tenant may ({ServiceLimits.Section}:MaxStreamsPerTenant)");
            }

            if (holder is not null && _byKey.GetValueOrDefault(holder) >= _limits.MaxStreamsPerKey)
            {
                throw Refused($"This key holds {_limits.MaxStreamsPerKey:N0} streams open, the most one key may ({ServiceLimits.Section}:MaxStreamsPerKey)");
            }

            _open++;
            Add(_byTenant, tenant, 1);
            Add(_byKey, holder, 1);
        }

        _opened?.Add(1);
        return new Lease(this, holder, tenant);
    }

    private void Release(string? holder, string? tenant)
    {
        lock (_gate)
        {
            _open--;
            Add(_byTenant, tenant, -1);
            Add(_byKey, holder, -1);
        }

        _opened?.Add(-1);
    }

    private static void Add(Dictionary<string, int> counts, string? name, int change)
    {
        if (name is null)
        {
            return;
        }

        var count = counts.GetValueOrDefault(name) + change;
        if (count == 0)
        {
            counts.Remove(name); // the maps hold only those with streams open
        }
        else
        {
            counts[name] = count;
        }
    }

    private QueueFullException Refused(string why)
    {
        _refused?.Add(1);
        return new(
            string.Create(CultureInfo.InvariantCulture, $"{why}: close one, or try again in {_limits.RetryAfter.TotalSeconds:0.#} s."), _limits.RetryAfter);
    }

    private static long ReadOpenFileLimit()
    {
        // Linux: /proc/self/limits, "Max open files  <soft>  <hard>  files". Elsewhere, unknown.
        try
        {
            foreach (var line in File.ReadLines("/proc/self/limits"))
            {
                if (line.StartsWith("Max open files", StringComparison.Ordinal))
                {
                    var soft = line["Max open files".Length..].Split(' ', StringSplitOptions.RemoveEmptyEntries)[0];
                    return long.TryParse(soft, NumberStyles.None, CultureInfo.InvariantCulture, out var value) ? value : long.MaxValue;
                }
            }
        }
        catch (IOException)
        {
        }
        catch (UnauthorizedAccessException)
        {
        }

        return long.MaxValue;
    }

    private sealed class Lease(StreamSlots slots, string? holder, string? tenant) : IDisposable
    {
        private int _released;

        public void Dispose()
        {
            if (Interlocked.Exchange(ref _released, 1) == 0)
            {
                slots.Release(holder, tenant);
            }
        }
    }
}
