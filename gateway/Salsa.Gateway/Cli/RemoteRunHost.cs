using System.Net;
using System.Net.ServerSentEvents;
using System.Runtime.CompilerServices;
using System.Text.Json;
using System.Text.Json.Nodes;
using Microsoft.Extensions.Options;
using Salsa.Gateway.Catalog;
using Salsa.Gateway.Hops;
using Salsa.Gateway.Runs;
using Salsa.Gateway.Workflows;

namespace Salsa.Gateway.Cli;

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

    public WorkflowDefinition Parse(string yaml, IReadOnlyDictionary<string, JsonNode?> parameters) => _library.Parse(yaml, "inline", null, parameters);

    public async Task<RunView> ReproduceAsync(Guid id, CancellationToken cancellationToken)
    {
        using var response = await SendAsync(() => _http.PostAsync($"api/runs/{id}/reproduce", content: null, cancellationToken)).ConfigureAwait(false);
        return await ReadAsync<RunView>(response, cancellationToken).ConfigureAwait(false);
    }

    public async Task<RunView> RetryFromAsync(Guid id, string stepId, IReadOnlyDictionary<string, JsonNode?> changes, CancellationToken cancellationToken)
    {
        using var response = await SendAsync(() => _http.PostAsJsonAsync($"api/runs/{id}/steps/{Uri.EscapeDataString(stepId)}/retry", new RerunRequest(new(changes)), RunManager.Json, cancellationToken)).ConfigureAwait(false);
        return await ReadAsync<RunView>(response, cancellationToken).ConfigureAwait(false);
    }

    public async Task<RunView> ReproduceAsync(RunView recorded, CancellationToken cancellationToken)
    {
        ArgumentNullException.ThrowIfNull(recorded);
        // What a reproduction reads of the recorded run, not its hops and progress: a small request.
        var sent = recorded with
        {
            Hops = [],
            HopsInFlight = [],
            Steps = [.. recorded.Steps.Select(s => s with { Outputs = null, Progress = null, ProgressHistory = [], Jobs = [] })],
        };
        using var response = await SendAsync(() => _http.PostAsJsonAsync("api/runs/reproduce", sent, RunManager.Json, cancellationToken)).ConfigureAwait(false);
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
        throw response.StatusCode is HttpStatusCode.BadRequest or HttpStatusCode.NotFound or HttpStatusCode.Conflict or HttpStatusCode.UnprocessableEntity
            ? new ArgumentException(message)
            : new GatewayUnavailableException(message);
    }

    private sealed record ProgressEvent(string? Step, StepProgress? Progress);
}
