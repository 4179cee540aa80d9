using System.Net.ServerSentEvents;
using System.Runtime.CompilerServices;
using System.Text.Json;
using Microsoft.Kiota.Abstractions.Authentication;
using Microsoft.Kiota.Http.HttpClientLibrary;
using Salsa.Client.Generated;
using Salsa.Client.Generated.Models;

namespace Salsa.Client;

/// <summary>
/// A client of one gateway: the Kiota client generated from <c>openapi/gateway.json</c>
/// (<see cref="Api"/>: every REST operation, errors thrown as <see cref="ProblemDetails"/>), and
/// what a generator cannot write — a run's server-sent events and waiting for its end.
/// </summary>
public sealed class SalsaGateway : IDisposable
{
    private static readonly HashSet<string> Finished = ["succeeded", "failed", "cancelled", "interrupted"];

    private readonly HttpClient _http;
    private readonly bool _ownsHttp;

    /// <summary>A client of the gateway at <paramref name="baseAddress"/>, with an API key when it asks for one (beyond loopback).</summary>
    public SalsaGateway(Uri baseAddress, string? apiKey = null, HttpClient? http = null)
    {
        ArgumentNullException.ThrowIfNull(baseAddress);
        _ownsHttp = http is null;
        _http = http ?? new HttpClient { Timeout = Timeout.InfiniteTimeSpan };
        _http.BaseAddress ??= new Uri(baseAddress.ToString().TrimEnd('/') + "/");
        if (apiKey is not null)
        {
            _http.DefaultRequestHeaders.Remove(ApiKeyHeader);
            _http.DefaultRequestHeaders.Add(ApiKeyHeader, apiKey);
        }

        // The key rides on the HttpClient's own headers: Kiota's ApiKeyAuthenticationProvider refuses
        // http, and a gateway is often reached over http on loopback or behind a TLS proxy.
        var adapter = new HttpClientRequestAdapter(new AnonymousAuthenticationProvider(), httpClient: _http)
        {
            BaseUrl = baseAddress.ToString().TrimEnd('/'),
        };
        Api = new GatewayClient(adapter);
    }

    /// <summary>The header an API key travels in.</summary>
    public const string ApiKeyHeader = "X-Api-Key";

    /// <summary>Every REST operation of the gateway, as generated from its OpenAPI document.</summary>
    public GatewayClient Api { get; }

    /// <summary>
    /// The run's server-sent events until it ends: <c>run</c> (the run), <c>step</c>,
    /// <c>progress</c>, <c>hop-start</c> and <c>hop</c>, each with its JSON.
    /// </summary>
    public async IAsyncEnumerable<SseItem<JsonElement>> EventsAsync(Guid runId, [EnumeratorCancellation] CancellationToken cancellationToken = default)
    {
        using var request = new HttpRequestMessage(HttpMethod.Get, $"api/runs/{runId}/events");
        request.Headers.Accept.ParseAdd("text/event-stream");
        using var response = await _http.SendAsync(request, HttpCompletionOption.ResponseHeadersRead, cancellationToken).ConfigureAwait(false);
        if (!response.IsSuccessStatusCode)
        {
            throw Problem(response, await response.Content.ReadAsStringAsync(cancellationToken).ConfigureAwait(false));
        }

        using var stream = await response.Content.ReadAsStreamAsync(cancellationToken).ConfigureAwait(false);
        await foreach (var item in SseParser.Create(stream, (_, data) => JsonDocument.Parse(data.ToArray()).RootElement.Clone()).EnumerateAsync(cancellationToken).ConfigureAwait(false))
        {
            yield return item;
        }
    }

    /// <summary>Follows the run's events until it ends, then reads it: the run as it ended.</summary>
    public async Task<RunView> WaitAsync(Guid runId, CancellationToken cancellationToken = default)
    {
        while (true)
        {
            await foreach (var item in EventsAsync(runId, cancellationToken).ConfigureAwait(false))
            {
                if (item.EventType == "run" && item.Data.TryGetProperty("state", out var state) && Finished.Contains(state.GetString() ?? ""))
                {
                    return (await Api.Api.Runs[runId].GetAsync(cancellationToken: cancellationToken).ConfigureAwait(false))!;
                }
            }

            // The stream closed before the end (the gateway restarted, a proxy cut it): ask, then watch again.
            var run = (await Api.Api.Runs[runId].GetAsync(cancellationToken: cancellationToken).ConfigureAwait(false))!;
            if (run.State is RunState.Succeeded or RunState.Failed or RunState.Cancelled or RunState.Interrupted)
            {
                return run;
            }

            await Task.Delay(TimeSpan.FromMilliseconds(500), cancellationToken).ConfigureAwait(false);
        }
    }

    /// <summary>Uploads a place file (CSV or GeoJSON, plain or gzip) as it is read: the census dataset's JSON.</summary>
    public Task<JsonElement> UploadPlacesAsync(Stream file, string name, string contentType = "text/csv", CancellationToken cancellationToken = default) =>
        UploadAsync("api/uploads/places", file, name, contentType, cancellationToken);

    /// <summary>Uploads a compound file (SMILES, CSV or SDF, plain or gzip): the dataset and the molecules RDKit refused.</summary>
    public Task<JsonElement> UploadCompoundsAsync(Stream file, string name, string contentType = "text/plain", CancellationToken cancellationToken = default) =>
        UploadAsync("api/uploads/compounds", file, name, contentType, cancellationToken);

    private async Task<JsonElement> UploadAsync(string path, Stream file, string name, string contentType, CancellationToken cancellationToken)
    {
        // Generated code sends a body as one string; a file goes as a stream instead.
        using var content = new StreamContent(file);
        content.Headers.ContentType = new System.Net.Http.Headers.MediaTypeHeaderValue(contentType);
        using var response = await _http.PostAsync($"{path}?name={Uri.EscapeDataString(name)}", content, cancellationToken).ConfigureAwait(false);
        var body = await response.Content.ReadAsStringAsync(cancellationToken).ConfigureAwait(false);
        if (!response.IsSuccessStatusCode)
        {
            throw Problem(response, body);
        }

        return JsonDocument.Parse(body).RootElement.Clone();
    }

    /// <summary>An error answer as the generated code throws it: the ProblemDetails the gateway wrote.</summary>
    private static ProblemDetails Problem(HttpResponseMessage response, string body)
    {
        var problem = new ProblemDetails { Status = (int)response.StatusCode, Title = response.ReasonPhrase, ResponseStatusCode = (int)response.StatusCode };
        try
        {
            var json = JsonDocument.Parse(body).RootElement;
            problem.Title = json.TryGetProperty("title", out var title) ? title.GetString() : problem.Title;
            problem.Detail = json.TryGetProperty("detail", out var detail) ? detail.GetString() : null;
            problem.Type = json.TryGetProperty("type", out var type) ? type.GetString() : null;
        }
        catch (JsonException)
        {
            problem.Detail = body.Length > 500 ? body[..500] : body;
        }

        return problem;
    }

    public void Dispose()
    {
        if (_ownsHttp)
        {
            _http.Dispose();
        }
    }
}
