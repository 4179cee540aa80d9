using System.Net.Http.Json;
using System.Net.ServerSentEvents;
using System.Text.Json;
using Salsa.Gateway.Runs;

namespace Salsa.Bench.Experiments.Gateway;

/// <summary>
/// A run driven as a REST client drives it: <c>POST /api/runs</c> with inline YAML and
/// <c>Accept: text/event-stream</c>, reading the run's events in its answer until the final
/// <c>run</c> event; or, as before that answer existed, the POST and then
/// <c>GET /api/runs/{id}/events</c>.
/// </summary>
public sealed class RestRunClient(Uri gateway) : IDisposable
{
    private static readonly JsonSerializerOptions s_json = new(JsonSerializerDefaults.Web);

    private readonly HttpClient _http = new(new SocketsHttpHandler { UseProxy = false, PooledConnectionIdleTimeout = Timeout.InfiniteTimeSpan })
    {
        BaseAddress = gateway,
        Timeout = TimeSpan.FromMinutes(1),
    };

    /// <summary>Starts a run of <paramref name="yaml"/> and returns the run as its last event carried it: its events in the POST's answer, or from a GET after it.</summary>
    public async Task<RunView> RunAsync(string yaml, bool eventsInAnswer, CancellationToken cancellationToken)
    {
        if (eventsInAnswer)
        {
            using var start = new HttpRequestMessage(HttpMethod.Post, "/api/runs") { Content = JsonContent.Create(new { yaml }) };
            start.Headers.Accept.ParseAdd("text/event-stream");
            using var answer = await _http.SendAsync(start, HttpCompletionOption.ResponseHeadersRead, cancellationToken);
            return await LastRunAsync(answer, cancellationToken);
        }

        Guid id;
        using (var started = await _http.PostAsJsonAsync("/api/runs", new { yaml }, cancellationToken))
        {
            started.EnsureSuccessStatusCode();
            id = (await started.Content.ReadFromJsonAsync<RunView>(s_json, cancellationToken))!.Id;
        }

        using var events = await _http.GetAsync($"/api/runs/{id}/events", HttpCompletionOption.ResponseHeadersRead, cancellationToken);
        return await LastRunAsync(events, cancellationToken);
    }

    private static async Task<RunView> LastRunAsync(HttpResponseMessage events, CancellationToken cancellationToken)
    {
        events.EnsureSuccessStatusCode();
        await using var stream = await events.Content.ReadAsStreamAsync(cancellationToken);
        RunView? last = null;
        await foreach (var item in SseParser.Create(stream).EnumerateAsync(cancellationToken))
        {
            if (item.EventType == "run")
            {
                last = JsonSerializer.Deserialize<RunView>(item.Data, s_json);
            }
        }

        // Read to its end, which follows the final event at once, so the connection serves the next request.
        return last?.State is not (null or RunState.Queued or RunState.Running) ? last
            : throw new InvalidOperationException($"The events of run {last?.Id} ended before the run did (last state {last?.State}).");
    }

    /// <summary>A GET of <paramref name="path"/>, its body read: a request that starts no run.</summary>
    public async Task GetAsync(string path, CancellationToken cancellationToken)
    {
        using var response = await _http.GetAsync(path, cancellationToken);
        response.EnsureSuccessStatusCode();
        await response.Content.ReadAsByteArrayAsync(cancellationToken);
    }

    public void Dispose() => _http.Dispose();
}
