using System.Net.Http.Json;
using System.Text;
using System.Text.Json;
using Salsa.Hosting.Datasets;
using Salsa.Hosting.Jobs;
using Salsa.Hosting.Rpc;

namespace Salsa.Services.Tests.Support;

/// <summary>One server-sent event: its type and its data as JSON.</summary>
public sealed record ServerEvent(string Event, JsonElement Data);

/// <summary>What a REST client of any service does: upload, start, watch (SSE), wait, fetch.</summary>
public static class RestCalls
{
    /// <summary>Web defaults; a protobuf message (a job's result) read by the proto3 JSON mapping, strictly (an unknown field fails).</summary>
    public static readonly JsonSerializerOptions Json = new(JsonSerializerDefaults.Web) { Converters = { new ProtoJson() } };

    private static CancellationToken Token => TestContext.Current.CancellationToken;

    public static async Task<DatasetView> UploadCsvAsync(this HttpClient client, string query, string csv)
    {
        using var content = new StringContent(csv, Encoding.UTF8, "text/csv");
        using var response = await client.PostAsync($"/api/datasets/csv?{query}", content, Token);
        await EnsureAsync(response);
        return (await response.Content.ReadFromJsonAsync<DatasetView>(Json, Token))!;
    }

    public static async Task<JobView> StartJobAsync(this HttpClient client, string path, object body)
    {
        using var response = await client.PostAsJsonAsync(path, body, Json, Token);
        await EnsureAsync(response);
        Assert.Equal(System.Net.HttpStatusCode.Accepted, response.StatusCode);
        return (await response.Content.ReadFromJsonAsync<JobView>(Json, Token))!;
    }

    /// <summary>Posts <paramref name="json"/> as it is (bad input included) and returns the response.</summary>
    public static async Task<HttpResponseMessage> PostJsonTextAsync(this HttpClient client, string path, string json)
    {
        using var content = new StringContent(json, Encoding.UTF8, "application/json");
        return await client.PostAsync(path, content, Token);
    }

    /// <summary>
    /// Posts a body larger than the service takes, as a careful client does: with
    /// <c>Expect: 100-continue</c>, so the 413 comes back before the body is sent. Sent blindly, a body
    /// of megabytes meets the connection Kestrel closes after its 413 and the client reads a broken
    /// pipe instead of the answer (HTTP/1.1 allows the server to close; the answer is then lost).
    /// </summary>
    public static async Task<HttpResponseMessage> PostOversizedAsync(this HttpClient client, string path, HttpContent content)
    {
        using var request = new HttpRequestMessage(HttpMethod.Post, path) { Content = content };
        request.Headers.ExpectContinue = true;
        return await client.SendAsync(request, Token);
    }

    /// <summary>Posts <paramref name="body"/> as JSON; the response must succeed and is read as <typeparamref name="T"/>.</summary>
    public static async Task<T> PostForAsync<T>(this HttpClient client, string path, object body)
    {
        using var response = await client.PostAsJsonAsync(path, body, Json, Token);
        await EnsureAsync(response);
        return (await response.Content.ReadFromJsonAsync<T>(Json, Token))!;
    }

    /// <summary>
    /// Reads /api/jobs/{id}/events to the end (or until <paramref name="stopWhen"/> says so): the
    /// events the job sent, in order. <paramref name="subscribed"/> runs once the first event is in,
    /// when the watch is certain to see everything the job does from then on.
    /// </summary>
    public static async Task<List<ServerEvent>> WatchAsync(this HttpClient client, Guid jobId, Func<ServerEvent, bool>? stopWhen = null, Func<Task>? subscribed = null)
    {
        using var request = new HttpRequestMessage(HttpMethod.Get, $"/api/jobs/{jobId}/events");
        using var response = await client.SendAsync(request, HttpCompletionOption.ResponseHeadersRead, Token);
        await EnsureAsync(response);
        Assert.Equal("text/event-stream", response.Content.Headers.ContentType?.MediaType);
        using var reader = new StreamReader(await response.Content.ReadAsStreamAsync(Token));
        var events = new List<ServerEvent>();
        string? type = null;
        var data = new StringBuilder();
        while (await reader.ReadLineAsync(Token) is { } line)
        {
            if (line.Length == 0)
            {
                if (data.Length > 0)
                {
                    var item = new ServerEvent(type ?? "message", JsonDocument.Parse(data.ToString()).RootElement.Clone());
                    events.Add(item);
                    if (events.Count == 1 && subscribed is not null)
                    {
                        await subscribed();
                    }

                    if (stopWhen?.Invoke(item) == true)
                    {
                        break;
                    }
                }

                (type, data) = (null, data.Clear());
            }
            else if (line.StartsWith("event:", StringComparison.Ordinal))
            {
                type = line["event:".Length..].Trim();
            }
            else if (line.StartsWith("data:", StringComparison.Ordinal))
            {
                data.Append(line["data:".Length..].TrimStart());
            }
        }

        return events;
    }

    /// <summary>Returns once the job has reported progress (so it is running).</summary>
    public static Task WaitForProgressAsync(this HttpClient client, Guid jobId) =>
        client.WatchAsync(jobId, e => e.Event == "progress");

    /// <summary>The job's final state (from its event stream).</summary>
    public static async Task<JobView> WaitAsync(this HttpClient client, Guid jobId)
    {
        var events = await client.WatchAsync(jobId);
        var last = events.Last(e => e.Event == "status");
        return last.Data.Deserialize<JobView>(Json)!;
    }

    /// <summary>A response that must be a ProblemDetails with this status; returns its detail (required unless said otherwise).</summary>
    public static async Task<string> ProblemAsync(HttpResponseMessage response, int status, bool requireDetail = true)
    {
        var body = await response.Content.ReadAsStringAsync(Token);
        Assert.True((int)response.StatusCode == status, $"expected {status}, got {(int)response.StatusCode}: {body}");
        Assert.Equal("application/problem+json", response.Content.Headers.ContentType?.MediaType);
        using var problem = JsonDocument.Parse(body);
        Assert.Equal(status, problem.RootElement.GetProperty("status").GetInt32());
        Assert.False(string.IsNullOrWhiteSpace(problem.RootElement.GetProperty("title").GetString()), "the problem has no title");
        return requireDetail || problem.RootElement.TryGetProperty("detail", out _) ? problem.RootElement.GetProperty("detail").GetString() ?? "" : "";
    }

    public static async Task EnsureAsync(HttpResponseMessage response)
    {
        if (!response.IsSuccessStatusCode)
        {
            Assert.Fail($"{(int)response.StatusCode} {response.ReasonPhrase}: {await response.Content.ReadAsStringAsync(Token)}");
        }
    }

    /// <summary>The names in a service's catalogue listing (census or compound sources), each of which must have a description.</summary>
    public static async Task<List<string>> CatalogueNamesAsync(this HttpClient client, string path)
    {
        var items = (await client.GetFromJsonAsync<List<CatalogueItem>>(path, Json, Token))!;
        Assert.All(items, item => Assert.False(string.IsNullOrWhiteSpace(item.Description), $"{item.Name} has no description"));
        return [.. items.Select(item => item.Name)];
    }

    /// <summary>How many jobs the service lists (up to 1,000).</summary>
    public static async Task<int> CountJobsAsync(this HttpClient client) =>
        (await client.GetFromJsonAsync<List<JobView>>("/api/jobs?limit=1000", Json, Token))!.Count;

    /// <summary>How many datasets the store lists (up to 1,000).</summary>
    public static async Task<int> CountDatasetsAsync(this HttpClient client) =>
        (await client.GetFromJsonAsync<List<DatasetView>>("/api/datasets?limit=1000", Json, Token))!.Count;

    /// <summary>Server-Timing entries as name → milliseconds.</summary>
    public static Dictionary<string, double> ParseServerTiming(string header) =>
        header.Split(',', StringSplitOptions.TrimEntries | StringSplitOptions.RemoveEmptyEntries)
            .Select(part => part.Split(";dur="))
            .ToDictionary(p => p[0], p => double.Parse(p[1], System.Globalization.CultureInfo.InvariantCulture));

    private sealed record CatalogueItem(string Name, string Description);
}
