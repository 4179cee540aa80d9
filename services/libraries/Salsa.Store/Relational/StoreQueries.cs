using System.Reflection;
using System.Text;

namespace Salsa.Store.Relational;

/// <summary>
/// The SQL a vendor runs for each of the store's operations, written in its own file beside its
/// store (<c>Sqlite/Sql/queries.sql</c>, <c>Postgres/Sql/queries.sql</c>) as Orleans' ADO.NET
/// providers keep theirs: each query under a <c>-- name: Query</c> line. The relational core reads
/// them through these properties, so a query is named by the compiler, never by a string; loading
/// refuses a file that lacks a query the core needs or names one nobody reads. Parameters are
/// written <c>@name</c> (both vendors' providers take that form); <c>{Name}</c> inside a query is
/// replaced by the file's fragment of that name (a column list), once, when the file is read.
/// </summary>
internal class StoreQueries
{
    /// <summary>The version the database's schema is at (0 for a new one), as one scalar.</summary>
    public string SchemaVersion { get; init; } = "";

    /// <summary>Records <c>{version}</c> as the schema's version.</summary>
    public string SetSchemaVersion { get; init; } = "";

    /// <summary>True when the database keeps a schema version at all (where reading it from a new database would fail); null where <see cref="SchemaVersion"/> answers 0 then.</summary>
    public string? SchemaKept { get; init; }

    /// <summary>Makes processes initialising one database at once take turns, inside the migration's transaction; null where that transaction already does.</summary>
    public string? LockSchema { get; init; }

    /// <summary>Makes one tenant's quota checks (<c>@what</c>, <c>@tenant</c>) take turns until the transaction ends; null where a write transaction already excludes every other.</summary>
    public string? LockTenant { get; init; }

    public string InsertDataset { get; init; } = "";

    /// <summary>What a tenant keeps: datasets and bytes, the one being imported (<c>@id</c>) not counted.</summary>
    public string TenantUsage { get; init; } = "";

    /// <summary>Makes an imported dataset visible with its totals.</summary>
    public string CompleteDataset { get; init; } = "";

    /// <summary>Keeps the digest of a dataset stored before digests were kept (<c>@id</c>, <c>@sha256</c>).</summary>
    public string SetDatasetDigest { get; init; } = "";

    public string GetDataset { get; init; } = "";

    /// <summary>kind, count, dimension, bits, has_labels, has_texts of a visible dataset.</summary>
    public string DatasetShape { get; init; } = "";

    /// <summary>idx, vector, weight, label, text of rows [@start, @end), in order.</summary>
    public string DatasetPoints { get; init; } = "";

    public string ListDatasets { get; init; } = "";

    public string RenameDataset { get; init; } = "";

    public string DeleteDatasetPoints { get; init; } = "";

    public string DeleteDataset { get; init; } = "";

    public string InsertJob { get; init; } = "";

    /// <summary>A job's upsert: afterwards the stored record is this one whether or not it existed.</summary>
    public string UpsertJob { get; init; } = "";

    public string GetJob { get; init; } = "";

    public string FindDatasetUser { get; init; } = "";

    /// <summary>A page of jobs with the total on every row; <c>{where}</c> takes the filters.</summary>
    public string QueryJobs { get; init; } = "";

    /// <summary>The jobs the filters in <c>{where}</c> select.</summary>
    public string CountJobs { get; init; } = "";

    public string JobsOfService { get; init; } = "";

    public string JobsOfTenant { get; init; } = "";

    public string JobsOfKind { get; init; } = "";

    public string JobsInState { get; init; } = "";

    public string JobsCreatedFrom { get; init; } = "";

    public string JobsCreatedBefore { get; init; } = "";

    public string MarkInterrupted { get; init; } = "";

    public string PutArtifact { get; init; } = "";

    /// <summary>Keeps the digest of a file stored before digests were kept (<c>@job_id</c>, <c>@name</c>, <c>@sha256</c>).</summary>
    public string SetArtifactDigest { get; init; } = "";

    public string GetArtifact { get; init; } = "";

    public string ListArtifacts { get; init; } = "";

    public string CountLiveKeys { get; init; } = "";

    public string InsertApiKey { get; init; } = "";

    public string GetApiKey { get; init; } = "";

    public string ListApiKeys { get; init; } = "";

    public string RevokeApiKey { get; init; } = "";

    /// <summary>Reads a vendor's <c>queries.sql</c> (an embedded resource) into <typeparamref name="T"/>, every query of it set.</summary>
    public static T Load<T>(string resource)
        where T : StoreQueries, new()
    {
        var raw = Parse(StoreSchema.Script(resource), resource);
        var named = raw.ToDictionary(
            query => query.Key,
            query => raw.Aggregate(query.Value, (sql, fragment) => sql.Replace('{' + fragment.Key + '}', fragment.Value, StringComparison.Ordinal)),
            StringComparer.Ordinal);
        var queries = new T();
        var nullability = new NullabilityInfoContext();
        var properties = typeof(T).GetProperties(BindingFlags.Public | BindingFlags.Instance).Where(p => p.PropertyType == typeof(string)).ToDictionary(p => p.Name, StringComparer.Ordinal);
        foreach (var property in properties.Values)
        {
            if (named.TryGetValue(property.Name, out var sql))
            {
                property.SetValue(queries, sql);
            }
            else if (nullability.Create(property).WriteState != NullabilityState.Nullable)
            {
                throw new InvalidOperationException($"{resource} has no query '{property.Name}', which the store runs.");
            }
        }

        var fragments = raw.Keys.Where(k => !properties.ContainsKey(k)).ToList();
        var unread = fragments.Where(f => !raw.Values.Any(sql => sql.Contains('{' + f + '}', StringComparison.Ordinal))).ToList();
        if (unread.Count > 0)
        {
            throw new InvalidOperationException($"{resource} names queries the store never runs: {string.Join(", ", unread)}.");
        }

        return queries;
    }

    /// <summary>The file's queries by name, as written.</summary>
    private static Dictionary<string, string> Parse(string text, string resource)
    {
        const string Header = "-- name: ";
        var named = new Dictionary<string, string>(StringComparer.Ordinal);
        string? name = null;
        var body = new StringBuilder();
        void Close()
        {
            if (name is not null && !named.TryAdd(name, body.ToString().Trim()))
            {
                throw new InvalidOperationException($"{resource} names the query '{name}' twice.");
            }

            body.Clear();
        }

        foreach (var line in text.Split('\n'))
        {
            if (line.StartsWith(Header, StringComparison.Ordinal))
            {
                Close();
                name = line[Header.Length..].Trim();
            }
            else if (name is not null && !line.TrimStart().StartsWith("--", StringComparison.Ordinal))
            {
                body.Append(line.TrimEnd('\r')).Append('\n');
            }
        }

        Close();
        return named;
    }
}
