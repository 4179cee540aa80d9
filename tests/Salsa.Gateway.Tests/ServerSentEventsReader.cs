using System.Runtime.CompilerServices;
using System.Text.Json;

namespace Salsa.Gateway.Tests;

/// <summary>A gateway's server-sent events as a client reads them: (event name, JSON data) in order, until the stream ends.</summary>
internal static class ServerSentEventsReader
{
    public static async IAsyncEnumerable<(string Name, JsonElement Data)> ReadAsync(HttpClient http, string path, [EnumeratorCancellation] CancellationToken cancellationToken)
    {
        using var response = await http.GetAsync(path, HttpCompletionOption.ResponseHeadersRead, cancellationToken);
        response.EnsureSuccessStatusCode();
        Assert.Equal("text/event-stream", response.Content.Headers.ContentType?.MediaType);
        using var reader = new StreamReader(await response.Content.ReadAsStreamAsync(cancellationToken));
        var name = "message";
        while (await reader.ReadLineAsync(cancellationToken) is { } line)
        {
            if (line.StartsWith("event: ", StringComparison.Ordinal))
            {
                name = line["event: ".Length..];
            }
            else if (line.StartsWith("data: ", StringComparison.Ordinal))
            {
                yield return (name, JsonDocument.Parse(line["data: ".Length..]).RootElement.Clone());
            }
            else if (line.Length == 0)
            {
                name = "message";
            }
        }
    }
}
