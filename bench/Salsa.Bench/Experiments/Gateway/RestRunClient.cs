using System.Net.Http.Json;
using System.Net.ServerSentEvents;
using System.Text.Json;
using Salsa.Gateway.Runs;

namespace Salsa.Bench.Experiments.Gateway;

/// <summary>
/// A run driven as a REST client drives it: <c>POST /api/runs</c> with inline YAML, then
/// <c>GET /api/runs/{id}/events</c> (server-sent events) until the final <c>run</c> event.
/// </summary>
public sealed class RestRunClient(Uri gateway) : IDisposable
{
    private static readonly JsonSerializerOptions s_json = new(JsonSerializerDefaults.Web);

    private readonly HttpClient _http = new(new SocketsHttpHandler { UseProxy = false, PooledConnectionIdleTimeout = Timeout.InfiniteTimeSpan })
    {
        BaseAddress = gateway,
        Timeout = TimeSpan.FromMinutes(1),
    };

    /// <summary>Starts a run of <paramref name="yaml"/> and returns the run as its last event carried it.</summary>
    public async Task<RunView> RunAsync(string yaml, CancellationToken cancellationToken)
    {
        Guid id;
        using (var started = await _http.PostAsJsonAsync("/api/runs", new { yaml }, cancellationToken))
        {
            started.EnsureSuccessStatusCode();
            id = (await started.Content.ReadFromJsonAsync<RunView>(s_json, cancellationToken))!.Id;
        }

        using var events = await _http.GetAsync($"/api/runs/{id}/events", HttpCompletionOption.ResponseHeadersRead, cancellationToken);
        events.EnsureSuccessStatusCode();
        await using var stream = await events.Content.ReadAsStreamAsync(cancellationToken);
        RunView? last = null;
        await foreach (var item in SseParser.Create(stream).EnumerateAsync(cancellationToken))
        {
            if (item.EventType == "run")
            {
                last = JsonSerializer.Deserialize<RunView>(item.Data, s_json);
                if (last?.State is not (null or RunState.Queued or RunState.Running))
                {
                    return last;
                }
            }
        }

        throw new InvalidOperationException($"The events of run {id} ended before the run did (last state {last?.State}).");
    }

    public void Dispose() => _http.Dispose();
}
