using System.Collections.Concurrent;
using Microsoft.Extensions.Logging;

namespace Salsa.Hosting.Jobs;

/// <summary>
/// What each of a service's recent jobs logged, as its owner may read it (<c>GET /api/jobs/{id}/log</c>,
/// <c>Jobs.GetLog</c>): its life (accepted, started after its queue wait, each new phase, its end)
/// and every line the service logged at Information or above while the job's work ran. Held in
/// memory for the last <see cref="MaxJobs"/> jobs since the service started, each at most
/// <see cref="MaxBytesPerJob"/> (later lines are counted, not kept): a console's view of a job, not
/// the service's log, which the log exporters keep in full.
/// </summary>
/// <remarks>
/// Lines carry an exception's type, never its message or stack: those can hold what a caller may not
/// see (a server path, a driver's text), as with a failed job's error.
/// </remarks>
public sealed class JobLogs
{
    public const int MaxJobs = 1000;

    public const int MaxBytesPerJob = 64 * 1024;

    private static readonly AsyncLocal<JobLog?> s_current = new();

    private readonly ConcurrentDictionary<Guid, JobLog> _logs = new();
    private readonly ConcurrentQueue<Guid> _order = new();

    /// <summary>The log of the job whose work runs on this flow, if any.</summary>
    internal static JobLog? Current => s_current.Value;

    /// <summary>A new log for job <paramref name="id"/>; the oldest beyond <see cref="MaxJobs"/> is let go.</summary>
    public JobLog Open(Guid id)
    {
        var log = _logs.GetOrAdd(id, static _ => new JobLog());
        _order.Enqueue(id);
        while (_order.Count > MaxJobs && _order.TryDequeue(out var oldest))
        {
            _logs.TryRemove(oldest, out _);
        }

        return log;
    }

    /// <summary>The log of job <paramref name="id"/>, or null when this service holds none (another process's job, or let go).</summary>
    public JobLog? Get(Guid id) => _logs.GetValueOrDefault(id);

    /// <summary>Lines logged on this flow go to <paramref name="log"/> until the returned scope is disposed.</summary>
    public static Scope Enter(JobLog log)
    {
        var previous = s_current.Value;
        s_current.Value = log;
        return new Scope(previous);
    }

    public readonly struct Scope(JobLog? previous) : IDisposable
    {
        public void Dispose() => s_current.Value = previous;
    }
}

/// <summary>Copies what the service logs while a job's work runs into that job's <see cref="JobLog"/>.</summary>
internal sealed class JobLogProvider : ILoggerProvider
{
    public ILogger CreateLogger(string categoryName) => new Logger(categoryName[(categoryName.LastIndexOf('.') + 1)..]);

    public void Dispose()
    {
    }

    private sealed class Logger(string category) : ILogger
    {
        public IDisposable? BeginScope<TState>(TState state)
            where TState : notnull => null;

        public bool IsEnabled(LogLevel logLevel) => logLevel is >= LogLevel.Information and < LogLevel.None && JobLogs.Current is not null;

        public void Log<TState>(LogLevel logLevel, EventId eventId, TState state, Exception? exception, Func<TState, Exception?, string> formatter)
        {
            if (IsEnabled(logLevel) && JobLogs.Current is { } log)
            {
                log.Append(logLevel, category, formatter(state, null), exception);
            }
        }
    }
}
