using System.Collections.Concurrent;
using System.Diagnostics;
using System.Diagnostics.Metrics;
using Microsoft.AspNetCore.Http;

namespace Salsa.Hosting.Telemetry;

/// <summary>One service host of this process, as its telemetry knows it: the service it is.</summary>
internal sealed class TelemetryOwner(string serviceName)
{
    public string ServiceName { get; } = serviceName;

    public override string ToString() => ServiceName;
}

/// <summary>
/// Which host of this process a span or an instrument belongs to, so that each is exported once, by
/// its own service's providers. The sources and meters a host listens to are process-wide: when the
/// gateway hosts its services in one process every host's providers see every activity and every
/// instrument of those names.
/// </summary>
/// <remarks>
/// A span's owner is decided when it starts (<see cref="Claim"/>) and kept on the activity:
/// <list type="number">
/// <item>a Server span (ASP.NET Core's, which grpc-dotnet's calls share) belongs to the host whose Kestrel port received
/// the request — the request's <c>HttpContext.Connection.LocalPort</c>, looked up among the ports the
/// hosts listen on; its caller's span is in another host, or another process, across the wire;</item>
/// <item>any other span belongs to its in-process parent's owner: a client span (HttpClient,
/// grpc-dotnet's) to the service that makes the call, a job's work to the service that runs it;</item>
/// <item>a span with no parent here belongs to the host of its own source's name (the gateway's run
/// spans, a service's own), else to the host serving the current request;</item>
/// <item>anything else (a root span of a shared library made outside any request) belongs to the
/// process's first host: the gateway when it hosts the others, the service itself when it runs
/// alone.</item>
/// </list>
/// A process with one host (compose, a cluster, a service run alone) therefore exports everything
/// from that host, as before.
/// </remarks>
internal static class TelemetryOwners
{
    /// <summary>The activity's custom property that holds its <see cref="TelemetryOwner"/>.</summary>
    public const string PropertyName = "salsa.owner";

    private static readonly Lock s_gate = new();
    private static readonly List<TelemetryOwner> s_owners = [];
    private static readonly ConcurrentDictionary<int, TelemetryOwner> s_ports = new();

    // HttpContextAccessor keeps the current request in a static AsyncLocal: any instance reads it. A
    // host's request sets it (before the hosting layer starts the request's activity) when the host
    // has an IHttpContextAccessor registered, as ServiceTelemetry does when it exports.
    private static readonly HttpContextAccessor s_request = new();

    /// <summary>The first host still running: the owner of what no other rule attributes.</summary>
    public static TelemetryOwner? First
    {
        get
        {
            lock (s_gate)
            {
                return s_owners.Count > 0 ? s_owners[0] : null;
            }
        }
    }

    public static TelemetryOwner Register(string serviceName)
    {
        var owner = new TelemetryOwner(serviceName);
        lock (s_gate)
        {
            s_owners.Add(owner);
        }

        return owner;
    }

    /// <summary>The host listens on these ports: requests they receive are its.</summary>
    public static void Listen(TelemetryOwner owner, IEnumerable<int> ports)
    {
        foreach (var port in ports)
        {
            s_ports[port] = owner;
        }
    }

    public static void Unregister(TelemetryOwner owner)
    {
        lock (s_gate)
        {
            s_owners.Remove(owner);
        }

        foreach (var (port, listener) in s_ports)
        {
            if (ReferenceEquals(listener, owner))
            {
                s_ports.TryRemove(KeyValuePair.Create(port, listener));
            }
        }
    }

    public static TelemetryOwner? OwnerOf(Activity activity) => activity.GetCustomProperty(PropertyName) as TelemetryOwner;

    /// <summary>Decides the activity's owner as it starts, once (every host's processor calls this).</summary>
    public static void Claim(Activity activity)
    {
        if (OwnerOf(activity) is null && Decide(activity) is { } owner)
        {
            activity.SetCustomProperty(PropertyName, owner);
        }
    }

    /// <summary>
    /// Whether a host's meter provider keeps an instrument: the host's own when the meter was made by
    /// its <see cref="IMeterFactory"/> (ASP.NET Core's and Kestrel's meters, Salsa.Hosting's); a
    /// process-wide meter's (a static <c>new Meter(…)</c>: Salsa.Ccr's, Npgsql's, HttpClient's outside
    /// a factory) only by the first host, so that it is counted once.
    /// </summary>
    public static bool Keeps(TelemetryOwner owner, IMeterFactory? meterFactory, Instrument instrument)
    {
        ArgumentNullException.ThrowIfNull(instrument);
        return instrument.Meter.Scope is { } scope ? ReferenceEquals(scope, meterFactory) : ReferenceEquals(First, owner);
    }

    private static TelemetryOwner? Decide(Activity activity)
    {
        if (activity.Kind == ActivityKind.Server && Receiver() is { } receiver)
        {
            return receiver;
        }

        for (var parent = activity.Parent; parent is not null; parent = parent.Parent)
        {
            if (OwnerOf(parent) is { } inherited)
            {
                return inherited;
            }
        }

        lock (s_gate)
        {
            if (s_owners.Find(o => string.Equals(o.ServiceName, activity.Source.Name, StringComparison.Ordinal)) is { } own)
            {
                return own;
            }
        }

        return Receiver() ?? First;
    }

    /// <summary>The host whose port received the request being served, if any.</summary>
    private static TelemetryOwner? Receiver() =>
        s_request.HttpContext is { } context && s_ports.TryGetValue(context.Connection.LocalPort, out var owner) ? owner : null;
}
