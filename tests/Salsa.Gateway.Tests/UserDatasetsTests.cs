using System.Globalization;
using System.Net;
using System.Net.Http.Json;
using System.Text;
using System.Text.Json;
using Salsa.Testing;

namespace Salsa.Gateway.Tests;

/// <summary>
/// The caller's datasets through the gateway (GET, PATCH, DELETE /api/datasets) on the embedded
/// default: uploads and what a run made, filtered and paged, each with the runs that used it; a new
/// name kept and a bad one refused with nothing changed; a delete; bad requests answered in words.
/// </summary>
public sealed class UserDatasetsTests
{
    private static CancellationToken Token => TestContext.Current.CancellationToken;

    [Fact]
    public async Task Datasets_ListedFilteredPaged_WithTheirRuns_RenamedAndDeleted_BadRequestsRefused()
    {
        using var directory = new TemporaryDirectory();
        await using var gateway = await GatewayServer.StartAsync(directory.Combine("salsa.db"), cancellationToken: Token);
        var alpha = await UploadAsync(gateway, "alpha places.csv", 120);
        var beta = await UploadAsync(gateway, "beta places.csv", 80);
        var run = await gateway.StartRunAsync(new { workflow = "census-places", parameters = new Dictionary<string, object> { ["import.dataset"] = alpha, ["import.file"] = "", ["cluster.maxClusters"] = 3 } }, Token);
        var finished = await gateway.Runs.WaitAsync(run, Token);
        Assert.True(finished.State == Runs.RunState.Succeeded, finished.Error);
        var queried = finished.Steps.Single(s => s.Id == "query").Outputs!["dataset"]!.GetValue<string>();

        // Every dataset, newest first: the two uploads and what the run's query made of alpha.
        var (all, total) = await ListAsync(gateway, "");
        Assert.Equal(3, total);
        Assert.Equal([queried, beta, alpha], all.Select(d => d.GetProperty("datasetId").GetString()));
        var alphaEntry = all.Single(d => d.GetProperty("datasetId").GetString() == alpha);
        Assert.Equal(("alpha places.csv", "census", 120, "census"), (alphaEntry.GetProperty("name").GetString(), alphaEntry.GetProperty("kind").GetString(), alphaEntry.GetProperty("count").GetInt32(), alphaEntry.GetProperty("service").GetString()));
        Assert.True(alphaEntry.GetProperty("bytes").GetInt64() > 0);
        Assert.Equal(run.ToString(), Assert.Single(alphaEntry.GetProperty("runs").EnumerateArray()).GetProperty("runId").GetString());
        Assert.Equal(run.ToString(), Assert.Single(all[0].GetProperty("runs").EnumerateArray()).GetProperty("runId").GetString());
        Assert.Empty(all[1].GetProperty("runs").EnumerateArray());

        // Filters and pages: the total is what the filters select.
        Assert.Equal([beta], (await ListAsync(gateway, "?name=BETA")).Items.Select(d => d.GetProperty("datasetId").GetString()));
        var census = (await ListAsync(gateway, "?kind=census")).Total;
        Assert.True(census >= 2, $"{census} census datasets");
        Assert.Equal(3, census + (await ListAsync(gateway, "?kind=dense")).Total);
        Assert.Equal(0, (await ListAsync(gateway, "?kind=compounds")).Total);
        var (second, pagedTotal) = await ListAsync(gateway, "?limit=1&offset=1");
        Assert.Equal((beta, 3), (second.Single().GetProperty("datasetId").GetString(), pagedTotal));

        // A new name: kept, its content and digest unchanged.
        var before = await gateway.Http.GetFromJsonAsync<JsonElement>($"/api/datasets/{alpha}", Token);
        using (var renamed = await gateway.Http.PatchAsJsonAsync($"/api/datasets/{alpha}", new { name = "  Indianapolis, south  " }, Token))
        {
            Assert.Equal(HttpStatusCode.OK, renamed.StatusCode);
        }

        var after = await gateway.Http.GetFromJsonAsync<JsonElement>($"/api/datasets/{alpha}", Token);
        Assert.Equal("Indianapolis, south", after.GetProperty("name").GetString());
        Assert.Equal((before.GetProperty("count").GetInt32(), before.GetProperty("bytes").GetInt64()), (after.GetProperty("count").GetInt32(), after.GetProperty("bytes").GetInt64()));

        // Bad names and bad requests: a 400 or 404 in words, nothing changed.
        foreach (var bad in new[] { "", "   ", new string('x', 201), "two\nlines" })
        {
            using var refused = await gateway.Http.PatchAsJsonAsync($"/api/datasets/{alpha}", new { name = bad }, Token);
            Assert.Equal(HttpStatusCode.BadRequest, refused.StatusCode);
            Assert.Contains("1 to 200 characters", await refused.Content.ReadAsStringAsync(Token), StringComparison.Ordinal);
        }

        Assert.Equal("Indianapolis, south", (await gateway.Http.GetFromJsonAsync<JsonElement>($"/api/datasets/{alpha}", Token)).GetProperty("name").GetString());
        foreach (var query in new[] { "?kind=nope", "?limit=0", "?limit=201", "?offset=-1", "?name=" + new string('n', 201) })
        {
            using var refused = await gateway.Http.GetAsync($"/api/datasets{query}", Token);
            Assert.Equal(HttpStatusCode.BadRequest, refused.StatusCode);
        }

        using (var notAnId = await gateway.Http.GetAsync("/api/datasets/not-an-id", Token))
        {
            Assert.Equal(HttpStatusCode.BadRequest, notAnId.StatusCode);
        }

        var unknown = Guid.NewGuid();
        using (var missing = await gateway.Http.GetAsync($"/api/datasets/{unknown}", Token))
        {
            Assert.Equal(HttpStatusCode.NotFound, missing.StatusCode);
            Assert.Contains(unknown.ToString(), await missing.Content.ReadAsStringAsync(Token), StringComparison.Ordinal);
        }

        using (var missing = await gateway.Http.DeleteAsync($"/api/datasets/{unknown}", Token))
        {
            Assert.Equal(HttpStatusCode.NotFound, missing.StatusCode);
        }

        // A delete: gone from the list and from its service.
        using (var deleted = await gateway.Http.DeleteAsync($"/api/datasets/{beta}", Token))
        {
            Assert.Equal(HttpStatusCode.NoContent, deleted.StatusCode);
        }

        Assert.DoesNotContain(beta, (await ListAsync(gateway, "")).Items.Select(d => d.GetProperty("datasetId").GetString()));
        using (var gone = await gateway.Http.GetAsync($"/api/datasets/{beta}", Token))
        {
            Assert.Equal(HttpStatusCode.NotFound, gone.StatusCode);
        }
    }

    private static async Task<(List<JsonElement> Items, int Total)> ListAsync(GatewayServer gateway, string query)
    {
        using var response = await gateway.Http.GetAsync($"/api/datasets{query}", Token);
        Assert.Equal(HttpStatusCode.OK, response.StatusCode);
        var items = await response.Content.ReadFromJsonAsync<List<JsonElement>>(Token);
        return (items!, int.Parse(response.Headers.GetValues("X-Total-Count").Single(), CultureInfo.InvariantCulture));
    }

    /// <summary>Places around Indianapolis as a CSV upload; the new dataset's id.</summary>
    private static async Task<string> UploadAsync(GatewayServer gateway, string name, int count)
    {
        var csv = new StringBuilder("id,latitude,longitude,weight\n");
        for (var i = 0; i < count; i++)
        {
            csv.Append(CultureInfo.InvariantCulture, $"p{i},{39 + (i % 13 * 0.09):0.0000},{-86.9 + (i % 19 * 0.06):0.0000},{1 + (i % 7)}\n");
        }

        using var content = new StringContent(csv.ToString(), Encoding.UTF8, "text/csv");
        using var response = await gateway.Http.PostAsync($"/api/uploads/places?name={Uri.EscapeDataString(name)}", content, Token);
        Assert.Equal(HttpStatusCode.Created, response.StatusCode);
        return (await response.Content.ReadFromJsonAsync<JsonElement>(Token)).GetProperty("dataset").GetProperty("datasetId").GetString()!;
    }
}
