using System.Globalization;
using System.Net;
using System.Net.ServerSentEvents;
using System.Runtime.CompilerServices;
using System.Text.Json;
using System.Text.Json.Nodes;
using Microsoft.Extensions.Options;
using Salsa.Gateway.Hops;
using Salsa.Gateway.Operations;
using Salsa.Gateway.Runs;
using Salsa.Gateway.Services;
using Salsa.Gateway.Workflows;
using Salsa.Hosting.Host;
using Salsa.Settings;

namespace Salsa.Gateway.Cli;

/// <summary>
/// Where the <c>run</c> command's run happens: in this process (<see cref="EmbeddedRunHost"/>, the
/// gateway with its services embedded) or on a gateway server (<see cref="RemoteRunHost"/>, e.g. the
/// gateway container of the compose deployment). The command shows both the same way.
/// </summary>
public interface IRunHost : IAsyncDisposable
{
    /// <summary>Where a browser watches the run (<c>{address}#/runs/{id}</c>).</summary>
    Uri Address { get; }

    /// <summary>Reads a workflow — a file, or a name in the workflows folder — with parameter overrides.</summary>
    WorkflowDefinition Load(string workflow, IReadOnlyDictionary<string, JsonNode?> parameters);

    Task<RunView> SubmitAsync(WorkflowDefinition workflow, IReadOnlyDictionary<string, JsonNode?> parameters, CancellationToken cancellationToken);

    /// <summary>The run's events until it ends.</summary>
    IAsyncEnumerable<RunEvent> WatchAsync(Guid id, CancellationToken cancellationToken);

    /// <summary>The run once it has ended.</summary>
    Task<RunView> WaitAsync(Guid id, CancellationToken cancellationToken);

    Task<byte[]> GetArtifactAsync(Guid id, string name, CancellationToken cancellationToken);

    Task CancelAsync(Guid id);
}

/// <summary>The gateway with every service embedded, in this process, on free loopback ports.</summary>
public sealed class EmbeddedRunHost : IRunHost
{
    private readonly WebApplication _app;
    private readonly RunManager _runs;
    private readonly WorkflowLibrary _library;

    private EmbeddedRunHost(WebApplication app, Uri address)
    {
        _app = app;
        Address = address;
        _runs = app.Services.GetRequiredService<RunManager>();
        _library = app.Services.GetRequiredService<WorkflowLibrary>();
    }

    public Uri Address { get; }

    /// <summary>Starts the gateway on free loopback ports (never colliding with a server on 5080), so the run can be watched in a browser.</summary>
    public static async Task<EmbeddedRunHost> StartAsync(IReadOnlyDictionary<string, string?> configuration, CancellationToken cancellationToken)
    {
        ArgumentNullException.ThrowIfNull(configuration);
        var pinned = PinnedPorts.From(SalsaOptions.Read<GatewayOptions>(new ConfigurationBuilder().AddInMemoryCollection(configuration).Build(), GatewayOptions.Section));
        var ports = pinned?.Gateway ?? new ServicePorts(ServicePorts.NextFreeLoopbackPort(), ServicePorts.NextFreeLoopbackPort());
        var settings = new Dictionary<string, string?>(ServiceHostSettings.PortSettings(ports))
        {
            // The terminal shows the run's own view: the console logs warnings only. A run's life is
            // logged at Information all the same, and exported over OTLP when an endpoint is set.
            ["Logging:Console:LogLevel:Default"] = "Warning",
            // Orleans' own notes (server GC, a thread pool stalled or a probe slow on a busy machine)
            // mean nothing to the user of one run; its errors still show, and a failed job says why.
            ["Logging:Console:LogLevel:Orleans"] = "Error",
        };
        if (pinned is not null)
        {
            settings["Cluster:SiloPort"] = pinned.Silo.ToString(CultureInfo.InvariantCulture);
            settings["Cluster:GatewayPort"] = pinned.SiloGateway.ToString(CultureInfo.InvariantCulture);
        }

        foreach (var (key, value) in configuration)
        {
            settings[key] = value;
        }

        var app = SalsaServiceHost.Create<GatewayService>(new ServiceHostSettings { Settings = settings });
        try
        {
            await app.StartAsync(cancellationToken).ConfigureAwait(false);
        }
        catch (Exception exception)
        {
            await app.DisposeAsync().ConfigureAwait(false);
            if (pinned is not null && exception is IOException)
            {
                throw new InvalidOperationException($"The gateway cannot listen on its pinned ports, {pinned.Describe(ports.Rest)} to {ports.Rest + PinnedPorts.Count - 1}: {exception.Message}", exception);
            }

            throw;
        }

        return new EmbeddedRunHost(app, ports.RestAddress);
    }

    public WorkflowDefinition Load(string workflow, IReadOnlyDictionary<string, JsonNode?> parameters) => RunHosts.Load(_library, workflow, parameters);

    public Task<RunView> SubmitAsync(WorkflowDefinition workflow, IReadOnlyDictionary<string, JsonNode?> parameters, CancellationToken cancellationToken) =>
        _runs.SubmitAsync(workflow, parameters, cancellationToken);

    public IAsyncEnumerable<RunEvent> WatchAsync(Guid id, CancellationToken cancellationToken) => _runs.WatchAsync(id, cancellationToken);

    public Task<RunView> WaitAsync(Guid id, CancellationToken cancellationToken) => _runs.WaitAsync(id, cancellationToken);

    public async Task<byte[]> GetArtifactAsync(Guid id, string name, CancellationToken cancellationToken) =>
        (await _runs.GetArtifactAsync(id, name, cancellationToken).ConfigureAwait(false)).Data;

    public Task CancelAsync(Guid id) => _runs.CancelAsync(id, CancellationToken.None);

    public async ValueTask DisposeAsync()
    {
        await _app.StopAsync(CancellationToken.None).ConfigureAwait(false);
        await _app.DisposeAsync().ConfigureAwait(false);
    }
}

/// <summary>
/// A gateway server, through its REST API: the workflow is read here (a file of this machine, or a
/// name in this clone's workflows folder) and sent inline; the run's events come as server-sent
/// events (the stream is reopened if it breaks); the files are downloaded when it ends.
/// </summary>
public sealed class RemoteRunHost : IRunHost
{
    private static readonly TimeSpan s_reconnectDelay = TimeSpan.FromSeconds(1);
    private const int MaxReconnects = 30;

    private readonly HttpClient _http;

    /// <param name="address">The gateway server.</param>
    /// <param name="apiKey">Sent with every request (X-Api-Key) when the server asks for credentials.</param>
    public RemoteRunHost(Uri address, string? apiKey = null)
    {
        Address = address;
        _http = new HttpClient { BaseAddress = address, Timeout = Timeout.InfiniteTimeSpan };
        if (!string.IsNullOrEmpty(apiKey))
        {
            _http.DefaultRequestHeaders.Add(Salsa.Hosting.Security.CredentialHeaders.Key, apiKey);
        }
    }

    private readonly WorkflowLibrary _library = new(new WorkflowParser(new OperationCatalog()), Options.Create(new GatewayOptions()));

    public Uri Address { get; }

    public WorkflowDefinition Load(string workflow, IReadOnlyDictionary<string, JsonNode?> parameters) => RunHosts.Load(_library, workflow, parameters);

    public async Task<RunView> SubmitAsync(WorkflowDefinition workflow, IReadOnlyDictionary<string, JsonNode?> parameters, CancellationToken cancellationToken)
    {
        ArgumentNullException.ThrowIfNull(workflow);
        var request = new RunRequest { Yaml = workflow.Yaml, Parameters = new Dictionary<string, JsonNode?>(parameters) };
        using var response = await SendAsync(() => _http.PostAsJsonAsync("api/runs", request, RunManager.Json, cancellationToken)).ConfigureAwait(false);
        return await ReadAsync<RunView>(response, cancellationToken).ConfigureAwait(false);
    }

    public async IAsyncEnumerable<RunEvent> WatchAsync(Guid id, [EnumeratorCancellation] CancellationToken cancellationToken)
    {
        for (var attempt = 0; ; attempt++)
        {
            var stream = await OpenEventsAsync(id, attempt, cancellationToken).ConfigureAwait(false);
            if (stream is null)
            {
                yield break; // the run has ended
            }

            await using (stream)
            {
                var events = SseParser.Create(stream, (type, data) => Parse(type, data)).EnumerateAsync(cancellationToken).GetAsyncEnumerator(cancellationToken);
                while (true)
                {
                    bool more;
                    try
                    {
                        more = await events.MoveNextAsync().ConfigureAwait(false);
                    }
                    catch (Exception exception) when (exception is HttpRequestException or IOException && attempt < MaxReconnects)
                    {
                        break; // the connection broke: reopen it
                    }

                    if (!more)
                    {
                        break;
                    }

                    if (events.Current.Data is { } item)
                    {
                        yield return item;
                    }
                }
            }

            // The stream ends with the run; if the run goes on, the connection was lost.
            var run = await GetWhenBackAsync(id, cancellationToken).ConfigureAwait(false);
            if (RunHosts.IsFinished(run.State))
            {
                yield break;
            }

            await Task.Delay(s_reconnectDelay, cancellationToken).ConfigureAwait(false);
        }
    }

    /// <summary>The run, asked again while the gateway is away (restarting: it resumes its runs), for up to half a minute.</summary>
    private async Task<RunView> GetWhenBackAsync(Guid id, CancellationToken cancellationToken)
    {
        for (var attempt = 0; ; attempt++)
        {
            try
            {
                return await GetAsync(id, cancellationToken).ConfigureAwait(false);
            }
            catch (GatewayUnavailableException) when (attempt < MaxReconnects)
            {
                await Task.Delay(s_reconnectDelay, cancellationToken).ConfigureAwait(false);
            }
        }
    }

    public async Task<RunView> WaitAsync(Guid id, CancellationToken cancellationToken)
    {
        while (true)
        {
            var run = await GetWhenBackAsync(id, cancellationToken).ConfigureAwait(false);
            if (RunHosts.IsFinished(run.State))
            {
                return run;
            }

            await foreach (var _ in WatchAsync(id, cancellationToken).ConfigureAwait(false))
            {
            }
        }
    }

    public async Task<byte[]> GetArtifactAsync(Guid id, string name, CancellationToken cancellationToken)
    {
        using var response = await SendAsync(() => _http.GetAsync($"api/runs/{id}/artifacts/{Uri.EscapeDataString(name)}", cancellationToken)).ConfigureAwait(false);
        await EnsureSuccessAsync(response, cancellationToken).ConfigureAwait(false);
        return await response.Content.ReadAsByteArrayAsync(cancellationToken).ConfigureAwait(false);
    }

    public async Task CancelAsync(Guid id)
    {
        using var response = await SendAsync(() => _http.PostAsync($"api/runs/{id}/cancel", content: null)).ConfigureAwait(false);
    }

    public ValueTask DisposeAsync()
    {
        _http.Dispose();
        return ValueTask.CompletedTask;
    }

    private async Task<RunView> GetAsync(Guid id, CancellationToken cancellationToken)
    {
        using var response = await SendAsync(() => _http.GetAsync($"api/runs/{id}", cancellationToken)).ConfigureAwait(false);
        return await ReadAsync<RunView>(response, cancellationToken).ConfigureAwait(false);
    }

    /// <summary>The event stream, or null once the run has ended.</summary>
    private async Task<Stream?> OpenEventsAsync(Guid id, int attempt, CancellationToken cancellationToken)
    {
        var response = await SendAsync(() => _http.GetAsync($"api/runs/{id}/events", HttpCompletionOption.ResponseHeadersRead, cancellationToken)).ConfigureAwait(false);
        try
        {
            await EnsureSuccessAsync(response, cancellationToken).ConfigureAwait(false);
            return await response.Content.ReadAsStreamAsync(cancellationToken).ConfigureAwait(false);
        }
        catch when (attempt > 0)
        {
            response.Dispose();
            return null;
        }
    }

    private static RunEvent? Parse(string type, ReadOnlySpan<byte> data) => type switch
    {
        "run" => new RunEvent.RunChanged(JsonSerializer.Deserialize<RunView>(data, RunManager.Json)!),
        "step" => new RunEvent.StepChanged(JsonSerializer.Deserialize<StepView>(data, RunManager.Json)!),
        "progress" => JsonSerializer.Deserialize<ProgressEvent>(data, RunManager.Json) is { Step: { } step, Progress: { } progress }
            ? new RunEvent.ProgressReported(step, progress)
            : null,
        "hop" => new RunEvent.HopRecorded(JsonSerializer.Deserialize<Hop>(data, RunManager.Json)!),
        _ => null, // an event a newer gateway sends and this one does not know
    };

    /// <summary>A request that says which gateway did not answer, rather than a socket error.</summary>
    private async Task<HttpResponseMessage> SendAsync(Func<Task<HttpResponseMessage>> send)
    {
        try
        {
            return await send().ConfigureAwait(false);
        }
        catch (HttpRequestException exception)
        {
            throw new GatewayUnavailableException($"No gateway answers at {Address} ({exception.Message}). Is it running? (docker compose ps; deploy/README.md)", exception);
        }
    }

    private static async Task<T> ReadAsync<T>(HttpResponseMessage response, CancellationToken cancellationToken)
    {
        await EnsureSuccessAsync(response, cancellationToken).ConfigureAwait(false);
        return await response.Content.ReadFromJsonAsync<T>(RunManager.Json, cancellationToken).ConfigureAwait(false)
            ?? throw new GatewayUnavailableException($"The gateway answered {response.RequestMessage?.RequestUri} with no body.");
    }

    /// <summary>An error answer becomes an exception that carries the gateway's own words (its ProblemDetails).</summary>
    private static async Task EnsureSuccessAsync(HttpResponseMessage response, CancellationToken cancellationToken)
    {
        if (response.IsSuccessStatusCode)
        {
            return;
        }

        var text = await response.Content.ReadAsStringAsync(cancellationToken).ConfigureAwait(false);
        string? detail = null;
        try
        {
            var problem = JsonNode.Parse(text);
            detail = (string?)problem?["detail"] ?? (string?)problem?["title"];
        }
        catch (JsonException)
        {
        }

        var message = $"The gateway answered {(int)response.StatusCode} {response.ReasonPhrase}: {detail ?? text}";
        throw response.StatusCode is HttpStatusCode.BadRequest or HttpStatusCode.NotFound or HttpStatusCode.UnprocessableEntity
            ? new ArgumentException(message)
            : new GatewayUnavailableException(message);
    }

    private sealed record ProgressEvent(string? Step, StepProgress? Progress);
}

/// <summary>The gateway a run was sent to did not answer, or refused for a reason of its own (busy, failing).</summary>
public sealed class GatewayUnavailableException(string message, Exception? inner = null) : Exception(message, inner);

internal static class RunHosts
{
    public static WorkflowDefinition Load(WorkflowLibrary library, string workflow, IReadOnlyDictionary<string, JsonNode?> parameters) =>
        File.Exists(workflow) || workflow.EndsWith(".yaml", StringComparison.Ordinal) || workflow.EndsWith(".yml", StringComparison.Ordinal)
            ? library.LoadFile(workflow, parameters)
            : library.Load(workflow, parameters);

    public static bool IsFinished(RunState state) => state is not (RunState.Queued or RunState.Running);
}
