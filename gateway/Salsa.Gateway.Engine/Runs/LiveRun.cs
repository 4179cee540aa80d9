using System.Diagnostics;
using System.Text.Json;
using System.Threading.Channels;
using Salsa.Gateway.Hops;
using Salsa.Gateway.Workflows;

namespace Salsa.Gateway.Runs;

/// <summary>
/// A run this gateway process is executing: its state (behind one lock), its hops, and the
/// watchers of its events. Snapshots (<see cref="View"/>) are immutable records.
/// </summary>
internal sealed class LiveRun
{
    private readonly Lock _gate = new();
    private readonly Dictionary<string, StepView> _steps;
    private readonly List<RunArtifactView> _artifacts;
    private readonly List<Channel<RunEvent>> _watchers = [];
    private RunView _run;
    private string? _requestJson;

    /// <summary>The run's views as it changed before it was announced (as submitted, running, ended: at most three), for the runs list to hear in order; null once announced.</summary>
    private List<RunView>? _unheard;

    /// <summary>A run to execute; <paramref name="announced"/> says whether the runs list hears of its changes from the start (a run read back from the store) or only once it is <see cref="Announce"/>d (a submitted run, once stored).</summary>
    public LiveRun(RunView run, WorkflowDefinition workflow, RunRequestRecord request, string tenant, bool announced = true)
    {
        _run = run;
        _unheard = announced ? null : [run];
        Tenant = tenant;
        Workflow = workflow;
        Request = request;
        _steps = run.Steps.ToDictionary(s => s.Id, StringComparer.Ordinal);
        _artifacts = [.. run.Artifacts];
        Hops = new HopRecorder(run.Hops);
        Hops.Recorded += hop => Publish(new RunEvent.HopRecorded(hop));
        Hops.Began += call => Publish(new RunEvent.HopBegan(call));
    }

    public Guid Id => _run.Id;

    /// <summary>The tenant the run belongs to and acts for in every service it calls.</summary>
    public string Tenant { get; }

    /// <summary>The span of the request that started the run (REST or gRPC): the run's own trace links to it.</summary>
    public ActivityContext StartedBy { get; init; }

    public WorkflowDefinition Workflow { get; }

    public RunRequestRecord Request { get; }

    /// <summary><see cref="Request"/> as every write of the run stores it (it never changes, so it is serialized once, by the first write).</summary>
    public string RequestJson => _requestJson ??= JsonSerializer.Serialize(Request, RunManager.Json);

    public HopRecorder Hops { get; }

    /// <summary>Cancelled by a user's cancel or the gateway's stop.</summary>
    public CancellationTokenSource Cancellation { get; } = new();

    /// <summary>Set when the gateway stops: the run is left to be resumed, not recorded as cancelled.</summary>
    public bool Stopping { get; set; }

    /// <summary>Told of every change of the run's own state (not its steps'): the runs list's feed.</summary>
    public Action<string, RunView>? Changed { get; init; }

    /// <summary>Set when the run has ended and its waiters and watchers have its final view.</summary>
    public TaskCompletionSource Completion { get; } = new(TaskCreationOptions.RunContinuationsAsynchronously);

    /// <summary>Set once the run's final view is stored (or its write failed and was logged), after <see cref="Completion"/>.</summary>
    public TaskCompletionSource Stored { get; } = new(TaskCreationOptions.RunContinuationsAsynchronously);

    /// <summary>
    /// The outcome of the insert that stores the submitted run: true once it is stored, false if the
    /// store refused it (the run is then cancelled and never written again). Every later write of the
    /// run waits for it. Already true for a run read back from the store.
    /// </summary>
    public Task<bool> Inserted { get; init; } = Task.FromResult(true);

    /// <summary>Whether the store refused the run's insert (known once <see cref="Inserted"/> completed).</summary>
    public bool Refused => Inserted.IsCompletedSuccessfully && !Inserted.Result;

    /// <summary>Set when the run's turn came and it holds one of the gateway's run slots.</summary>
    public TaskCompletionSource Admitted { get; } = new(TaskCreationOptions.RunContinuationsAsynchronously);

    public RunView View()
    {
        lock (_gate)
        {
            return _run with
            {
                Steps = [.. Workflow.Steps.Select(s => _steps[s.Id])],
                Hops = Hops.Hops,
                HopsInFlight = Hops.InFlight,
                Artifacts = [.. _artifacts],
            };
        }
    }

    public StepView Step(string id)
    {
        lock (_gate)
        {
            return _steps[id];
        }
    }

    public void Update(Func<RunView, RunView> change)
    {
        RunView view;
        lock (_gate)
        {
            _run = change(_run);
            view = View();
            if (_unheard is null)
            {
                Changed?.Invoke(Tenant, view); // under the lock: the list hears the run's changes in order
            }
            else
            {
                _unheard.Add(view);
            }
        }

        Publish(new RunEvent.RunChanged(view));
    }

    /// <summary>Like <see cref="Update"/>, with the run's whole view (its steps and files as they are now) given to <paramref name="change"/>.</summary>
    public void UpdateWhole(Func<RunView, RunView> change)
    {
        lock (_gate) // the lock is re-entrant: no step changes between the view and the update
        {
            var whole = View();
            Update(_ => change(whole));
        }
    }

    /// <summary>The run is stored: the runs list hears of it as it was submitted, of each change since, and of every change from now on.</summary>
    public void Announce()
    {
        lock (_gate)
        {
            foreach (var view in _unheard ?? [])
            {
                Changed?.Invoke(Tenant, view);
            }

            _unheard = null;
        }
    }

    public StepView UpdateStep(string id, Func<StepView, StepView> change)
    {
        StepView step;
        lock (_gate)
        {
            step = _steps[id] = change(_steps[id]);
        }

        Publish(new RunEvent.StepChanged(step));
        return step;
    }

    public void Report(string id, StepProgress progress)
    {
        lock (_gate)
        {
            var step = _steps[id];
            _steps[id] = step with { Progress = progress, ProgressHistory = ProgressHistory.Append(step.ProgressHistory, progress) };
        }

        Publish(new RunEvent.ProgressReported(id, progress));
    }

    public void AddArtifact(RunArtifactView artifact)
    {
        lock (_gate)
        {
            _artifacts.RemoveAll(a => a.Name == artifact.Name);
            _artifacts.Add(artifact);
        }
    }

    /// <summary>A stream of this run's events, starting with its state now; completed when the run ends.</summary>
    public ChannelReader<RunEvent> Watch()
    {
        var channel = Channel.CreateUnbounded<RunEvent>(new UnboundedChannelOptions { SingleReader = true });
        lock (_gate)
        {
            channel.Writer.TryWrite(new RunEvent.RunChanged(View()));
            if (Completion.Task.IsCompleted)
            {
                channel.Writer.TryComplete();
            }
            else
            {
                _watchers.Add(channel);
            }
        }

        return channel.Reader;
    }

    public void Unwatch(ChannelReader<RunEvent> reader)
    {
        lock (_gate)
        {
            _watchers.RemoveAll(w => w.Reader == reader);
        }
    }

    /// <summary>Closes every watcher's stream, after the <see cref="Update"/> that ended the run: its final view is the last event each heard (or, watching since, the first).</summary>
    public void Complete()
    {
        lock (_gate)
        {
            foreach (var watcher in _watchers)
            {
                watcher.Writer.TryComplete();
            }

            _watchers.Clear();
            Completion.TrySetResult();
        }
    }

    private void Publish(RunEvent item)
    {
        lock (_gate)
        {
            foreach (var watcher in _watchers)
            {
                watcher.Writer.TryWrite(item);
            }
        }
    }
}
