using System.Diagnostics;

namespace Salsa.Hosting.Jobs;

/// <summary>
/// A job's time in its trace: under the job's span, a <c>queue</c> span (accepted → started) and a
/// <c>compute</c> span (started → done, current while the work runs, so what it calls is under it),
/// and on the compute span one event per phase of the algorithm, named by the phase, carrying the
/// phase's last progress report: each temperature of an annealing (T, clusters, free energy, EM
/// iterations), each restart of k-means (its inertia and iterations), each SMACOF iteration (stress).
/// A phase is a run of reports with the same phase, temperature and clusters; a report with neither
/// temperature nor clusters (MDS) is a phase of its own.
/// </summary>
internal sealed class JobPhases
{
    /// <summary>Events beyond this many are dropped (OpenTelemetry's default limit per span).</summary>
    public const int MaxEvents = 128;

    private readonly object _gate = new();
    private Activity? _compute;
    private JobProgressUpdate? _last;
    private int _events;

    /// <summary>The job's queue wait as a finished child span of <paramref name="job"/> (the current span).</summary>
    public static void Queue(Activity? job, DateTimeOffset accepted, DateTimeOffset started)
    {
        if (job is null || Activity.Current != job)
        {
            return;
        }

        using var queue = SalsaHosting.ActivitySource.StartActivity("queue", ActivityKind.Internal, parentContext: default, startTime: accepted);
        queue?.SetEndTime(started.UtcDateTime); // stopping it makes the job's span current again
    }

    /// <summary>Starts the compute span under <paramref name="job"/> (the current span); the caller disposes it after <see cref="End"/>.</summary>
    public Activity? Start(Activity? job)
    {
        if (job is null || Activity.Current != job)
        {
            return null;
        }

        var compute = SalsaHosting.ActivitySource.StartActivity("compute");
        lock (_gate)
        {
            _compute = compute;
        }

        return compute;
    }

    /// <summary>A progress report: when it opens a new phase, the previous phase's last report becomes an event.</summary>
    public void Report(JobProgressUpdate update)
    {
        lock (_gate)
        {
            if (_compute is null)
            {
                return;
            }

            if (_last is { } last && Key(last) != Key(update))
            {
                Add(last);
            }

            _last = update;
        }
    }

    /// <summary>The last phase's event; nothing is recorded after.</summary>
    public void End()
    {
        lock (_gate)
        {
            if (_last is { } last)
            {
                Add(last);
            }

            (_compute, _last) = (null, null);
        }
    }

    private static (string, double?, int, int) Key(JobProgressUpdate update) =>
        (update.Phase, update.Temperature, update.Clusters, update.Temperature is null && update.Clusters == 0 ? update.Iteration : -1);

    private void Add(JobProgressUpdate update)
    {
        if (_events++ >= MaxEvents)
        {
            return;
        }

        var tags = new ActivityTagsCollection
        {
            ["salsa.progress.iteration"] = update.Iteration,
            ["salsa.progress.clusters"] = update.Clusters,
            ["salsa.progress.objective"] = update.Objective,
            ["salsa.progress.elapsed_ms"] = update.ElapsedMilliseconds,
        };
        if (update.Temperature is { } temperature)
        {
            tags["salsa.progress.temperature"] = temperature;
        }

        _compute!.AddEvent(new ActivityEvent(update.Phase, tags: tags));
    }
}
