using System.Globalization;
using System.Net.ServerSentEvents;
using System.Runtime.CompilerServices;
using System.Security.Claims;
using Microsoft.AspNetCore.Http.HttpResults;
using Microsoft.Extensions.Options;
using Salsa.Gateway.Catalog;
using Salsa.Gateway.Runs;
using Salsa.Gateway.Services;
using Salsa.Gateway.Workflows;
using Salsa.Hosting.Errors;
using Salsa.Hosting.Rpc;
using Salsa.Hosting.Security;

namespace Salsa.Gateway.Api;

/// <summary>REST: workflows, operations, services, and runs (start, list, get, events, cancel, artifacts).</summary>
public static class GatewayApi
{
    /// <summary>The events of a run's stream (GET /api/runs/{id}/events, and POST /api/runs asked for events).</summary>
    private static readonly Salsa.Hosting.Rpc.ServerSentEventsMetadata RunEventsMetadata = new(
        ("run", typeof(RunView)), ("step", typeof(StepView)), ("progress", typeof(RunProgressEvent)), ("hop-start", typeof(Hops.HopInFlight)), ("hop", typeof(Hops.Hop)));

    public static IEndpointRouteBuilder MapGatewayApi(this IEndpointRouteBuilder app)
    {
        var workflows = app.MapGroup("/api/workflows").WithTags("Workflows");
        workflows.MapGet("/", (WorkflowLibrary library) => TypedResults.Ok(library.List().Select(w => WorkflowView.Of(w, false)).ToList()))
            .WithName("ListWorkflows").WithSummary("The workflows of the gateway's workflows folder, with their steps (or why one does not load).");
        workflows.MapGet("/{name}", (WorkflowLibrary library, string name) =>
            library.List().FirstOrDefault(w => w.Name == name) is { } entry
                ? WorkflowView.Of(entry, true)
                : throw new NotFoundException($"No workflow '{name}' (known: {string.Join(", ", library.List().Select(w => w.Name))})."))
            .WithName("GetWorkflow").WithSummary("One workflow with its YAML.");
        workflows.MapPost("/validate", (WorkflowLibrary library, ValidateRequest request) =>
        {
            var definition = library.Parse(request.Yaml ?? throw new ArgumentException("Give the workflow's YAML (yaml)."), "inline", null, request.Parameters);
            return TypedResults.Ok(new { valid = true, name = definition.Name, steps = WorkflowView.StepsOf(definition), order = definition.Order.Select(s => s.Id) });
        }).WithName("ValidateWorkflow").WithSummary("Checks a workflow: 200 with its steps, or 400 whose errors list every problem with its line and column.");

        app.MapGet("/api/operations", (OperationCatalog catalog) => TypedResults.Ok(catalog.Specifications.Select(OperationView.Of))).WithTags("Workflows").WithName("ListOperations").WithSummary("Every operation a step can name: inputs, parameters (kind, bounds, whether a path), outputs, files, and what its job's progress reports (field and label).");

        app.MapGet("/api/services", async (ServiceDirectory directory, ClaimsPrincipal user, CancellationToken cancellationToken) =>
        {
            // Where the services listen is the deployment's inside: for its administrators only.
            var addresses = Scopes.Grant(CallerClaims.ScopesOf(user), Scopes.Admin);
            var names = ServiceDirectory.Known.Order(StringComparer.Ordinal).ToList();
            var health = await Task.WhenAll(names.Select(name => directory.HealthAsync(name, HealthTimeout, cancellationToken)));
            return TypedResults.Ok(names.Select((name, i) =>
            {
                var endpoint = directory.Endpoints.FirstOrDefault(e => e.Name == name);
                var remote = directory.RemoteAddress(name);
                return new ServiceView(name, remote is null ? "embedded" : "remote", endpoint is not null, health[i],
                    addresses ? endpoint?.GrpcAddress ?? remote : null, addresses ? endpoint?.RestAddress : null);
            }).ToList());
        }).WithTags("Workflows").WithName("ListServices")
          .WithSummary("The services the gateway calls: remote (configured) or embedded, whether started, and their grpc.health.v1 health (serving, not-serving, unreachable; idle for an embedded service not started); where they listen only for the admin scope.");

        app.MapGet("/api/console", (IOptions<GatewayOptions> options) => TypedResults.Ok(new ConsoleSettings(options.Value.Console.TraceUrl is { Length: > 0 } url ? url : null)))
            .WithTags("Workflows").WithName("GetConsoleSettings")
            .WithSummary("What the web console links to: traceUrl, the trace viewer's page of a trace ({traceId} in it), when one is configured (Gateway:Console:TraceUrl).");

        var runs = app.MapGroup("/api/runs").WithTags("Runs");
        runs.MapPost("/", async Task<Results<Accepted<RunView>, EventStreamResult>> (RunManager manager, StreamSlots streams, RunRequest request, HttpContext http, CancellationToken cancellationToken) =>
        {
            // The stream's slot before the run: a caller holding too many streams starts nothing.
            var slot = AcceptsEvents(http.Request) ? streams.Acquire(http) : null;
            RunView run;
            try
            {
                run = await manager.SubmitAsync(request, cancellationToken);
            }
            catch
            {
                slot?.Dispose();
                throw;
            }

            var location = $"/api/runs/{run.Id}";
            if (slot is null)
            {
                return TypedResults.Accepted(location, run);
            }

            // The run's events in the answer to its start: one request instead of a POST and a GET.
            // A caller that leaves stops the stream, never the run.
            http.Response.Headers.Location = location;
            return new EventStreamResult(Events(manager, run.Id, cancellationToken), slot);
        }).WithName("StartRun")
          .WithSummary("Starts a run of a workflow (by name or inline YAML, with parameter overrides): 202 with the run; with `Accept: text/event-stream`, 200 with the run's events until it ends (those of GET /api/runs/{id}/events), Location naming the run.")
          .WithMetadata(RunEventsMetadata);
        runs.MapGet("/", async (RunManager manager, HttpResponse response, string? workflow, string? state, DateTimeOffset? from, DateTimeOffset? before, int? offset, int? limit, CancellationToken cancellationToken) =>
        {
            var page = await manager.QueryAsync(RunQuery.Of(workflow, state, from, before, offset, limit), cancellationToken);
            response.Headers[TotalCountHeader] = page.Total.ToString(CultureInfo.InvariantCulture);
            return TypedResults.Ok(page.Runs.Select(RunSummary.Of).ToList());
        }).WithName("ListRuns")
          .WithSummary("The caller's runs, newest first: a page (offset, limit ≤ 1000) of those of a workflow, in a state, created in [from, before); X-Total-Count says how many match.");
        runs.MapGet("/events", (RunManager manager, CancellationToken cancellationToken) =>
            new EventStreamResult(manager.WatchListAsync(cancellationToken)
                .Select(summary => summary is null ? new SseItem<object>(new WatchReady("runs"), "ready") : new SseItem<object>(summary, "run"))))
            .WithName("WatchRuns")
            .WithSummary("Server-sent events, until the caller leaves: `ready` once the watch has begun (a list read after it misses nothing), then a `run` event (its summary) for each of the caller's runs accepted or changing state.")
            .WithMetadata(new Salsa.Hosting.Rpc.ServerSentEventsMetadata(("ready", typeof(WatchReady)), ("run", typeof(RunSummary))));
        runs.MapGet("/{id}", async (RunManager manager, string id, CancellationToken cancellationToken) =>
            TypedResults.Ok(await manager.GetRequiredAsync(ParseId(id), cancellationToken)))
            .WithName("GetRun").WithSummary("A run: state, steps (progress, outputs), hops and artifacts.");
        runs.MapGet("/{id}/events", async (RunManager manager, string id, CancellationToken cancellationToken) =>
        {
            var runId = ParseId(id);
            await manager.GetRequiredAsync(runId, cancellationToken); // an unknown id is a 404, not an empty stream
            return new EventStreamResult(Events(manager, runId, cancellationToken));
        }).WithName("WatchRun").WithSummary("Server-sent events until the run ends: run, step, progress, hop-start (a call begun) and hop (a call ended).")
          .WithMetadata(RunEventsMetadata);
        runs.MapPost("/{id}/cancel", async (RunManager manager, string id, CancellationToken cancellationToken) =>
            TypedResults.Ok(await manager.CancelAsync(ParseId(id), cancellationToken)))
            .WithName("CancelRun").WithSummary("Cancels a queued or running run (its service jobs are cancelled too); no effect on a finished one.");
        runs.MapPost("/{id}/rerun", async (RunManager manager, string id, RerunRequest? request, CancellationToken cancellationToken) =>
        {
            var run = await manager.RerunAsync(ParseId(id), request?.Parameters, cancellationToken);
            return TypedResults.Accepted($"/api/runs/{run.Id}", run);
        }).WithName("RerunRun")
          .WithSummary("Runs again the workflow text a run ran, with its parameters and the changes given (a null value drops an override): 202 with the new run, whose rerunOf names the old one.");
        runs.MapPost("/{id}/steps/{step}/retry", async (RunManager manager, string id, string step, RerunRequest? request, CancellationToken cancellationToken) =>
        {
            var run = await manager.RetryFromAsync(ParseId(id), step, request?.Parameters, cancellationToken);
            return TypedResults.Accepted($"/api/runs/{run.Id}", run);
        }).WithName("RetryRunFromStep")
          .WithSummary("Runs an ended run again from one of its steps (Airflow's clear): that step and everything downstream of it run anew, with the changes given for those steps (a null value drops an override); every other step that succeeded is reused — its outputs, the same dataset ids, its digests and files. 202 with the new run, whose rerunOf names the old one and retriedFrom the step; 409 while the run is queued or running or when a step it reads did not succeed, 400 for a change to a reused step, 404 for an unknown step.");
        runs.MapPost("/{id}/reproduce", async (RunManager manager, string id, CancellationToken cancellationToken) =>
        {
            var run = await manager.ReproduceAsync(ParseId(id), cancellationToken);
            return TypedResults.Accepted($"/api/runs/{run.Id}", run);
        }).WithName("ReproduceRun")
          .WithSummary("Runs a succeeded run again exactly as it ran (its workflow text, every step's parameters as it ran them): 202 with the new run, whose reproduction lists each output and kept file with the recorded SHA-256 and, as the run goes, its own; once it ends, identical (true or false) and the first step that differs.");
        runs.MapPost("/reproduce", async (RunManager manager, RunView recorded, CancellationToken cancellationToken) =>
        {
            var run = await manager.ReproduceAsync(recorded, cancellationToken);
            return TypedResults.Accepted($"/api/runs/{run.Id}", run);
        }).WithName("ReproduceRecordedRun")
          .WithSummary("Reproduces a run recorded anywhere, from its result.json (the run as GET /api/runs/{id} returns it: provenance, steps with their parameters and digests, artifacts): 202 with the new run and its reproduction, as POST /api/runs/{id}/reproduce.");
        runs.MapGet("/{id}/steps/{step}/log", async (RunManager manager, string id, string step, CancellationToken cancellationToken) =>
            TypedResults.Text(await manager.GetStepLogAsync(ParseId(id), step, cancellationToken), "text/plain; charset=utf-8"))
            .WithName("GetStepLog")
            .WithSummary("A step's log, as text: first the gateway's lines (its start, each call to a service with its latency and outcome, its end), then each service job's lines from its service (accepted, started, each phase, its end, the service's lines while it ran) under a heading naming the job, one job per try. Read it again while the step runs: the console does, every 2 s.");
        runs.MapGet("/{id}/workflow", async (RunManager manager, string id, CancellationToken cancellationToken) =>
            TypedResults.Text(await manager.GetEffectiveWorkflowAsync(ParseId(id), cancellationToken), "application/yaml; charset=utf-8"))
            .WithName("GetRunWorkflow")
            .WithSummary("The run's workflow as it ran, as a workflow file (YAML): the workflow's text read with the run's overrides, each step's parameters as the step ran with them (the workflow's values, the operations' defaults and the overrides applied). Started as it is, it runs the same steps with the same parameters.");
        runs.MapGet("/{id}/artifacts/{name}", async (RunManager manager, string id, string name, CancellationToken cancellationToken) =>
        {
            var artifact = await manager.GetArtifactAsync(ParseId(id), name, cancellationToken);
            return TypedResults.File(artifact.Data, artifact.ContentType);
        }).WithName("GetRunArtifact").WithSummary("A file the run kept: map.svg, map.png, clusters.geojson, scatter.svg…");
        return app;
    }

    /// <summary>The response header of a runs list that says how many runs its query selects in all.</summary>
    public const string TotalCountHeader = "X-Total-Count";

    /// <summary>How long <c>/api/services</c> waits for a service's health.</summary>
    private static readonly TimeSpan HealthTimeout = TimeSpan.FromSeconds(2);

    public static Guid ParseId(string id) =>
        Guid.TryParse(id, out var guid) ? guid : throw new ArgumentException($"'{id}' is not a run id (a GUID).");

    /// <summary>Whether the request's Accept names <c>text/event-stream</c>.</summary>
    private static bool AcceptsEvents(HttpRequest request) =>
        request.GetTypedHeaders().Accept.Any(a => a.MediaType.Equals("text/event-stream", StringComparison.OrdinalIgnoreCase));

    private static async IAsyncEnumerable<SseItem<object>> Events(RunManager manager, Guid id, [EnumeratorCancellation] CancellationToken cancellationToken)
    {
        await foreach (var item in manager.WatchAsync(id, cancellationToken))
        {
            yield return item switch
            {
                RunEvent.RunChanged r => new SseItem<object>(r.View, "run"),
                RunEvent.StepChanged s => new SseItem<object>(s.View, "step"),
                RunEvent.ProgressReported p => new SseItem<object>(new RunProgressEvent(p.StepId, p.Update), "progress"),
                RunEvent.HopRecorded h => new SseItem<object>(h.Hop, "hop"),
                RunEvent.HopBegan b => new SseItem<object>(b.Call, "hop-start"),
                _ => throw new InvalidOperationException("Unknown run event."),
            };
        }
    }
}
