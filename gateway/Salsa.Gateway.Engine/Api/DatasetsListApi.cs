using System.Globalization;
using System.Text.Json.Nodes;
using Grpc.Core;
using Salsa.Contracts.Datasets;
using Salsa.Gateway.Runs;
using Salsa.Gateway.Services;
using Salsa.Hosting.Errors;

namespace Salsa.Gateway.Api;

/// <summary>A run that used a dataset: read it (a parameter names it) or made it (a step's output).</summary>
public sealed record DatasetRunUse(Guid RunId, string? Workflow, RunState State, DateTimeOffset Created);

/// <summary>One of the caller's datasets as the console's datasets page shows it.</summary>
public sealed record DatasetEntry(
    string DatasetId,
    string Name,
    string Kind,
    int Count,
    long Bytes,
    DateTimeOffset Created,
    string Source,
    string Service,
    string? RdkitVersion,
    IReadOnlyList<DatasetRunUse> Runs);

/// <summary>A dataset's new name.</summary>
public sealed record DatasetNewName(string Name);

/// <summary>
/// REST for the caller's datasets across the services that keep them (census: places, block groups
/// and their queries; chem: compounds and fingerprints): a page of them filtered by kind and name,
/// each with the runs that used it; one; a new name; a delete (refused while a queued or running job
/// or run uses it). What the console's datasets page reads.
/// </summary>
public static class DatasetsListApi
{
    /// <summary>The services whose datasets are listed, in the order a dataset's owner is looked for.</summary>
    private static readonly string[] Keepers = ["census", "chem"];

    /// <summary>The newest datasets read from each service, and runs read for their uses: the list's bound.</summary>
    public const int Scanned = 1000;

    public const int MaxLimit = 200;

    private static readonly string[] Kinds = ["dense", "binary", "census", "compounds"];

    public static IEndpointRouteBuilder MapDatasetsListApi(this IEndpointRouteBuilder app)
    {
        var datasets = app.MapGroup("/api/datasets").WithTags("Datasets");

        datasets.MapGet("/", async (ServiceDirectory services, RunManager runs, HttpResponse response, string? kind, string? name, int? offset, int? limit, CancellationToken cancellationToken) =>
        {
            if (kind is { Length: > 0 } && !Kinds.Contains(kind))
            {
                throw new ArgumentException($"kind is one of {string.Join(", ", Kinds)}.");
            }

            if (name is { Length: > 200 })
            {
                throw new ArgumentException("name is part of a dataset's name: at most 200 characters.");
            }

            if (limit is < 1 or > MaxLimit || offset is < 0 or > Scanned * 2)
            {
                throw new ArgumentException($"limit is 1 to {MaxLimit} and offset 0 to {Scanned * 2}.");
            }

            var all = await ListAsync(services, cancellationToken);
            var selected = all
                .Where(d => string.IsNullOrEmpty(kind) || Kind(d.Info.Kind) == kind)
                .Where(d => string.IsNullOrEmpty(name) || d.Info.Name.Contains(name, StringComparison.OrdinalIgnoreCase))
                .ToList();
            var page = selected.Skip(offset ?? 0).Take(limit ?? 50).ToList();
            var uses = await UsesAsync(runs, cancellationToken);
            response.Headers["X-Total-Count"] = selected.Count.ToString(CultureInfo.InvariantCulture);
            return TypedResults.Ok(page.Select(d => Entry(d.Info, d.Service, uses)).ToList());
        }).WithName("ListUserDatasets")
          .WithSummary("The caller's datasets — uploads, imports and what runs made of them — newest first, from the census and chem services (the newest 1,000 of each): filtered by kind (dense, binary, census, compounds) and by a part of the name, paged by offset and limit (X-Total-Count: how many the filters select), each with the runs of the newest 1,000 that used it.");

        datasets.MapGet("/{id}", async (ServiceDirectory services, RunManager runs, string id, CancellationToken cancellationToken) =>
        {
            var (info, service) = await FindAsync(services, id, cancellationToken);
            return TypedResults.Ok(Entry(info, service, await UsesAsync(runs, cancellationToken)));
        }).WithName("GetUserDataset").WithSummary("One of the caller's datasets, with the runs that used it.");

        datasets.MapPatch("/{id}", async (ServiceDirectory services, RunManager runs, string id, DatasetNewName rename, CancellationToken cancellationToken) =>
        {
            var (_, service) = await FindAsync(services, id, cancellationToken);
            var renamed = await new Datasets.DatasetsClient(await services.ChannelAsync(service, cancellationToken))
                .RenameAsync(new RenameDatasetRequest { DatasetId = id, Name = rename.Name ?? "" }, cancellationToken: cancellationToken);
            return TypedResults.Ok(Entry(renamed, service, await UsesAsync(runs, cancellationToken)));
        }).WithName("RenameUserDataset").WithSummary("Gives one of the caller's datasets a new name (1–200 characters); its id, content and digest stay, so the runs that used it still find it.");

        datasets.MapDelete("/{id}", async (ServiceDirectory services, string id, CancellationToken cancellationToken) =>
        {
            var (_, service) = await FindAsync(services, id, cancellationToken);
            await new Datasets.DatasetsClient(await services.ChannelAsync(service, cancellationToken))
                .DeleteAsync(new DatasetRef { DatasetId = id }, cancellationToken: cancellationToken);
            return TypedResults.NoContent();
        }).WithName("DeleteUserDataset").WithSummary("Deletes one of the caller's datasets; 409 naming the job or run while a queued or running one uses it, and nothing is deleted.");

        return app;
    }

    private static string Kind(DatasetKind kind) => kind switch
    {
        DatasetKind.Dense => "dense",
        DatasetKind.Binary => "binary",
        DatasetKind.Census => "census",
        DatasetKind.Compounds => "compounds",
        _ => "unknown",
    };

    private sealed record ListedDataset(DatasetInfo Info, string Service);

    /// <summary>Every keeper's newest datasets, each once (services that share a store list the same ones), newest first.</summary>
    private static async Task<List<ListedDataset>> ListAsync(ServiceDirectory services, CancellationToken cancellationToken)
    {
        var lists = await Task.WhenAll(Keepers.Select(async service =>
        {
            var answer = await new Datasets.DatasetsClient(await services.ChannelAsync(service, cancellationToken))
                .ListAsync(new ListDatasetsRequest { Limit = Scanned }, cancellationToken: cancellationToken);
            return answer.Datasets.Select(d => new ListedDataset(d, service));
        }));
        var seen = new HashSet<string>(StringComparer.Ordinal);
        return [.. lists.SelectMany(l => l).Where(d => seen.Add(d.Info.DatasetId)).OrderByDescending(d => d.Info.Created.ToDateTimeOffset())];
    }

    /// <summary>The caller's dataset and the service that keeps it; a 404 when none does (another tenant's is none).</summary>
    private static async Task<(DatasetInfo Info, string Service)> FindAsync(ServiceDirectory services, string id, CancellationToken cancellationToken)
    {
        if (!Guid.TryParse(id, out _))
        {
            throw new ArgumentException("A dataset id is a GUID.");
        }

        foreach (var service in Keepers)
        {
            try
            {
                var info = await new Datasets.DatasetsClient(await services.ChannelAsync(service, cancellationToken))
                    .GetAsync(new DatasetRef { DatasetId = id }, cancellationToken: cancellationToken);
                return (info, service);
            }
            catch (RpcException exception) when (exception.StatusCode == StatusCode.NotFound)
            {
                // not this service's
            }
        }

        throw new NotFoundException($"No dataset {id}.");
    }

    /// <summary>Dataset id → the runs (of the caller's newest 1,000) that named it in a parameter or made it as a step's output.</summary>
    private static async Task<Dictionary<string, List<DatasetRunUse>>> UsesAsync(RunManager runs, CancellationToken cancellationToken)
    {
        var page = await runs.QueryAsync(new RunQuery { Limit = RunQuery.MaxLimit }, cancellationToken);
        var uses = new Dictionary<string, List<DatasetRunUse>>(StringComparer.Ordinal);
        foreach (var run in page.Runs)
        {
            var ids = new HashSet<string>(StringComparer.Ordinal);
            foreach (var value in run.Parameters.Values)
            {
                if (value is JsonValue text && text.TryGetValue<string>(out var s))
                {
                    ids.Add(s);
                }
            }

            foreach (var step in run.Steps)
            {
                if (step.Outputs?["dataset"] is JsonValue output && output.TryGetValue<string>(out var made))
                {
                    ids.Add(made);
                }
            }

            foreach (var id in ids)
            {
                if (!uses.TryGetValue(id, out var list))
                {
                    uses[id] = list = [];
                }

                list.Add(new DatasetRunUse(run.Id, run.Workflow, run.State, run.Created));
            }
        }

        return uses;
    }

    private static DatasetEntry Entry(DatasetInfo info, string service, Dictionary<string, List<DatasetRunUse>> uses) => new(
        info.DatasetId,
        info.Name,
        Kind(info.Kind),
        info.Count,
        info.Bytes,
        info.Created.ToDateTimeOffset(),
        info.Source,
        service,
        info.RdkitVersion is { Length: > 0 } version ? version : null,
        uses.GetValueOrDefault(info.DatasetId) ?? []);
}
