using System.Data.Common;
using System.Globalization;
using Microsoft.Extensions.Logging;
using Npgsql;
using Salsa.Store.Postgres;
using Salsa.Store.Sqlite;

namespace Salsa.Store;

/// <summary>
/// Chooses and builds the store. The rule, applied to <see cref="StoreOptions.ConnectionString"/>:
/// <list type="bullet">
/// <item>null, empty or white space: SQLite at <see cref="StoreOptions.SqlitePath"/>;</item>
/// <item>a URI starting <c>postgres://</c> or <c>postgresql://</c> (libpq's form, as PaaS hosts
/// hand them out): PostgreSQL, the URI converted to Npgsql's keywords;</item>
/// <item>a <c>key=value;…</c> string with a <c>Host</c> or <c>Server</c> key (any case): PostgreSQL;</item>
/// <item>anything else: <see cref="ArgumentException"/>. A connection string that is set but not
/// understood is a configuration mistake, and quietly using a local SQLite file instead would
/// hide it (to use SQLite, leave the connection string empty and set the path).</item>
/// </list>
/// </summary>
public static class DataStoreFactory
{
    private static readonly string[] UriSchemes = ["postgres://", "postgresql://"];

    // libpq URI parameters whose Npgsql keyword is spelled differently; others pass through as-is.
    private static readonly Dictionary<string, string> UriParameterKeywords = new(StringComparer.OrdinalIgnoreCase)
    {
        ["sslmode"] = "SSL Mode",
        ["application_name"] = "Application Name",
        ["connect_timeout"] = "Timeout",
        ["options"] = "Options",
        ["target_session_attrs"] = "Target Session Attributes",
        ["sslcert"] = "SSL Certificate",
        ["sslkey"] = "SSL Key",
        ["sslpassword"] = "SSL Password",
        ["sslrootcert"] = "Root Certificate",
        ["user"] = "Username",
        ["dbname"] = "Database",
    };

    /// <summary>True when <paramref name="connectionString"/> selects PostgreSQL (see the class remarks).</summary>
    public static bool IsPostgres(string? connectionString)
    {
        if (string.IsNullOrWhiteSpace(connectionString))
        {
            return false;
        }

        var trimmed = connectionString.Trim();
        if (UriSchemes.Any(s => trimmed.StartsWith(s, StringComparison.OrdinalIgnoreCase)))
        {
            return true;
        }

        try
        {
            var parsed = new DbConnectionStringBuilder { ConnectionString = trimmed };
            return parsed.ContainsKey("Host") || parsed.ContainsKey("Server");
        }
        catch (ArgumentException)
        {
            return false;
        }
    }

    /// <summary>The store <paramref name="options"/> select, not yet initialised.</summary>
    /// <exception cref="ArgumentException">The connection string is set but is not a PostgreSQL one.</exception>
    public static IDataStore Create(StoreOptions options, ILoggerFactory? loggerFactory = null, TimeProvider? timeProvider = null)
    {
        ArgumentNullException.ThrowIfNull(options);
        if (string.IsNullOrWhiteSpace(options.ConnectionString))
        {
            return new SqliteDataStore(options.SqlitePath, timeProvider, options.Quota);
        }

        ThrowIfUnrecognised(options.ConnectionString);
        return new PostgresDataStore(ToNpgsqlConnectionString(options.ConnectionString), loggerFactory, timeProvider, options.Quota);
    }

    internal static void ThrowIfUnrecognised(string? connectionString)
    {
        if (Unrecognised(connectionString) is { } reason)
        {
            throw new ArgumentException(reason, nameof(connectionString));
        }
    }

    /// <summary>Why a connection string set is not a PostgreSQL one, or null when it is one or is empty (SQLite).</summary>
    internal static string? Unrecognised(string? connectionString) =>
        !string.IsNullOrWhiteSpace(connectionString) && !IsPostgres(connectionString)
            ? "The store's connection string (ConnectionStrings:salsa) is set but is not a PostgreSQL one: expected " +
              "'Host=…;Database=…' or 'postgres://user:password@host:port/database'. To use SQLite leave it empty and set Store:SqlitePath."
            : null;

    /// <summary>
    /// Npgsql's form of a PostgreSQL connection string: a <c>postgres://</c> URI
    /// (<c>postgres://user:password@host1:port1,host2/database?sslmode=require</c>, percent-encoded)
    /// becomes <c>Host=…;Port=…;Username=…;Password=…;Database=…;SSL Mode=…</c>; a keyword string is returned unchanged.
    /// </summary>
    public static string ToNpgsqlConnectionString(string connectionString)
    {
        ArgumentException.ThrowIfNullOrWhiteSpace(connectionString);
        var text = connectionString.Trim();
        var scheme = UriSchemes.FirstOrDefault(s => text.StartsWith(s, StringComparison.OrdinalIgnoreCase));
        if (scheme is null)
        {
            return connectionString;
        }

        // Parsed by hand: System.Uri rejects libpq's multi-host form (host1:5432,host2:5433).
        var rest = text[scheme.Length..];
        var builder = new NpgsqlConnectionStringBuilder();
        var query = "";
        var queryStart = rest.IndexOf('?', StringComparison.Ordinal);
        if (queryStart >= 0)
        {
            query = rest[(queryStart + 1)..];
            rest = rest[..queryStart];
        }

        var pathStart = rest.IndexOf('/', StringComparison.Ordinal);
        if (pathStart >= 0)
        {
            var database = Uri.UnescapeDataString(rest[(pathStart + 1)..]);
            if (database.Length > 0)
            {
                builder.Database = database;
            }

            rest = rest[..pathStart];
        }

        var at = rest.LastIndexOf('@');
        if (at >= 0)
        {
            var userInfo = rest[..at];
            rest = rest[(at + 1)..];
            var colon = userInfo.IndexOf(':', StringComparison.Ordinal);
            builder.Username = Uri.UnescapeDataString(colon >= 0 ? userInfo[..colon] : userInfo);
            if (colon >= 0)
            {
                builder.Password = Uri.UnescapeDataString(userInfo[(colon + 1)..]);
            }
        }

        if (rest.Length > 0)
        {
            var hosts = rest.Split(',');
            if (hosts.Length == 1)
            {
                var (host, port) = SplitPort(hosts[0]);
                builder.Host = host;
                if (port is { } p)
                {
                    builder.Port = p;
                }
            }
            else
            {
                // Npgsql takes a host list with per-host ports in Host itself.
                builder.Host = string.Join(',', hosts.Select(Uri.UnescapeDataString));
            }
        }

        foreach (var pair in query.Split('&', StringSplitOptions.RemoveEmptyEntries))
        {
            var equals = pair.IndexOf('=', StringComparison.Ordinal);
            var key = Uri.UnescapeDataString(equals >= 0 ? pair[..equals] : pair);
            var value = equals >= 0 ? Uri.UnescapeDataString(pair[(equals + 1)..].Replace('+', ' ')) : "";
            builder[UriParameterKeywords.GetValueOrDefault(key, key)] = value;
        }

        return builder.ConnectionString;
    }

    private static (string Host, int? Port) SplitPort(string hostAndPort)
    {
        var text = Uri.UnescapeDataString(hostAndPort);

        // [::1]:5432 — a bracketed IPv6 address may contain colons of its own.
        var colon = text.LastIndexOf(':');
        var bracket = text.LastIndexOf(']');
        if (colon < 0 || colon < bracket || (bracket < 0 && text.IndexOf(':', StringComparison.Ordinal) != colon))
        {
            return (text.Trim('[', ']'), null);
        }

        return (text[..colon].Trim('[', ']'), int.Parse(text[(colon + 1)..], NumberStyles.None, CultureInfo.InvariantCulture));
    }
}
