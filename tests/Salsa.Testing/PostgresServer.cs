using System.Diagnostics;
using System.Globalization;
using System.Net;
using System.Net.Sockets;
using System.Text.RegularExpressions;
using Npgsql;

namespace Salsa.Testing;

/// <summary>
/// A throwaway PostgreSQL server for tests, started from the machine's own binaries (Debian's
/// <c>/usr/lib/postgresql/&lt;version&gt;/bin</c>, or <c>$SALSA_POSTGRES_BIN</c>): a fresh cluster in a
/// temporary directory, on a free loopback port, with durability switched off for speed. Disposing
/// it stops the server and deletes the directory. Start one per test run and give each test class
/// its own database (<see cref="CreateDatabaseAsync"/>).
/// </summary>
public sealed partial class PostgresServer : IAsyncDisposable
{
    // Design: created by one thread (StartAsync) and afterwards only read, except for shutdown,
    // which DisposeAsync and the process-exit safety net may attempt at once; the _stopped flag
    // (Interlocked) lets exactly one of them run it. CreateDatabaseAsync may be called from many
    // test classes in parallel: each call uses its own unpooled connection and PostgreSQL
    // serialises the CREATE DATABASEs itself, so no lock is needed here.

    /// <summary>Overrides where <c>initdb</c>, <c>pg_ctl</c> and <c>postgres</c> are looked for.</summary>
    public const string BinDirectoryVariable = "SALSA_POSTGRES_BIN";

    /// <summary>The database created at start and named by <see cref="ConnectionString"/>.</summary>
    public const string DefaultDatabase = "salsa";

    private const string Superuser = "postgres";
    private const string DebianRoot = "/usr/lib/postgresql";
    private const int PortAttempts = 5;
    private static readonly TimeSpan CommandTimeout = TimeSpan.FromMinutes(2);
    private static readonly TimeSpan ReadyTimeout = TimeSpan.FromSeconds(60);
    private static readonly TimeSpan ReadyRetryDelay = TimeSpan.FromMilliseconds(50);

    private readonly string _root;
    private readonly bool _runAsPostgresUser;
    private int _stopped;
    private volatile bool _down;

    private PostgresServer(string binDirectory, string root, bool runAsPostgresUser, int port)
    {
        BinDirectory = binDirectory;
        _root = root;
        _runAsPostgresUser = runAsPostgresUser;
        Port = port;
        AppDomain.CurrentDomain.ProcessExit += OnProcessExit;
    }

    /// <summary>Where the server's binaries were found.</summary>
    public string BinDirectory { get; }

    /// <summary>The loopback TCP port the server listens on.</summary>
    public int Port { get; }

    private string DataDirectory => Path.Combine(_root, "data");

    /// <summary>An Npgsql connection string for <see cref="DefaultDatabase"/>.</summary>
    public string ConnectionString => ConnectionStringFor(DefaultDatabase);

    /// <summary>An Npgsql connection string for <paramref name="database"/> on this server, as the superuser.</summary>
    public string ConnectionStringFor(string database, IPAddress? host = null) => new NpgsqlConnectionStringBuilder
    {
        Host = (host ?? IPAddress.Loopback).ToString(),
        Port = Port,
        Username = Superuser,
        Database = database,
        IncludeErrorDetail = true,
        // Tests start and drop silos and hosts by the hundred against one server; a pool's idle
        // connections are closed after seconds, not Npgsql's five minutes, so they do not pile up.
        ConnectionIdleLifetime = 5,
        ConnectionPruningInterval = 1,
    }.ConnectionString;

    /// <summary>Finds the binaries, creates a cluster, starts it and waits until it accepts connections.</summary>
    /// <exception cref="InvalidOperationException">The binaries are missing (the message says how to install them) or the server did not start.</exception>
    public static Task<PostgresServer> StartAsync(CancellationToken cancellationToken = default) => StartAsync([], cancellationToken);

    /// <inheritdoc cref="StartAsync(CancellationToken)"/>
    /// <param name="alsoListenOn">Addresses besides loopback the server listens on (e.g. a test network's bridge), each trusted for its /24.</param>
    /// <param name="cancellationToken">Cancels the start.</param>
    public static async Task<PostgresServer> StartAsync(IReadOnlyList<IPAddress> alsoListenOn, CancellationToken cancellationToken = default)
    {
        var bin = FindBinDirectory();
        var root = Directory.CreateTempSubdirectory("salsa-pg-").FullName;

        // PostgreSQL refuses to run as root: as root, the cluster belongs to the postgres user and
        // every server command runs as that user; otherwise it all runs as whoever we are.
        var runAsPostgresUser = Environment.IsPrivilegedProcess;
        PostgresServer? server = null;
        try
        {
            if (runAsPostgresUser)
            {
                await RunAsync("chown", [$"{Superuser}:", root], asPostgresUser: false, cancellationToken);
            }

            var data = Path.Combine(root, "data");
            await RunAsync(Path.Combine(bin, "initdb"),
                ["-D", data, "-U", Superuser, "--auth=trust", "--encoding=UTF8", "--no-locale", "--no-sync"],
                runAsPostgresUser, cancellationToken);

            // Appended as root keeps the file's owner. Durability is off: a test cluster is thrown
            // away, and fsync per commit would dominate the tests' time.
            await File.AppendAllTextAsync(Path.Combine(data, "postgresql.conf"), $"""

                # Salsa.Testing.PostgresServer
                listen_addresses = '{string.Join(',', new[] { "127.0.0.1" }.Concat(alsoListenOn.Select(a => a.ToString())))}'
                unix_socket_directories = '{root}'
                fsync = off
                synchronous_commit = off
                full_page_writes = off
                max_connections = 1000
                """, cancellationToken);

            foreach (var address in alsoListenOn)
            {
                var bytes = address.GetAddressBytes();
                await File.AppendAllTextAsync(Path.Combine(data, "pg_hba.conf"), $"host all all {bytes[0]}.{bytes[1]}.{bytes[2]}.0/24 trust\n", cancellationToken);
            }

            for (var attempt = 1; ; attempt++)
            {
                // A port free now may be taken before the server binds it; then try another.
                var port = FindFreePort();
                try
                {
                    await RunAsync(Path.Combine(bin, "pg_ctl"),
                        ["-D", data, "-l", Path.Combine(root, "server.log"), "-o", $"-p {port}", "-w", "-t", "60", "start"],
                        runAsPostgresUser, cancellationToken);
                    server = new PostgresServer(bin, root, runAsPostgresUser, port);
                    break;
                }
                catch (InvalidOperationException) when (attempt < PortAttempts && ReadLog(root).Contains("could not bind", StringComparison.Ordinal))
                {
                }
            }

            await server.WaitUntilAcceptingAsync(cancellationToken);
            await server.CreateDatabaseAsync(DefaultDatabase, cancellationToken);
            return server;
        }
        catch (Exception e) when (e is not OperationCanceledException)
        {
            var log = ReadLog(root);
            await CleanUpAfterFailedStartAsync(server, root);
            throw new InvalidOperationException($"PostgreSQL did not start from {bin}: {e.Message}\n--- server log ---\n{log}", e);
        }
        catch
        {
            await CleanUpAfterFailedStartAsync(server, root);
            throw;
        }
    }

    /// <summary>
    /// Creates an empty database and returns its connection string. <paramref name="name"/> is
    /// lower-case letters, digits and underscores, starting with a letter or underscore (at most 63).
    /// </summary>
    public async Task<string> CreateDatabaseAsync(string name, CancellationToken cancellationToken = default)
    {
        if (!DatabaseName().IsMatch(name))
        {
            throw new ArgumentException($"'{name}' is not a plain PostgreSQL database name (a-z, 0-9, _; at most 63).", nameof(name));
        }

        await using var connection = new NpgsqlConnection(AdminConnectionString());
        await connection.OpenAsync(cancellationToken);
        await using var create = new NpgsqlCommand($"CREATE DATABASE \"{name}\"", connection);
        await create.ExecuteNonQueryAsync(cancellationToken);
        return ConnectionStringFor(name);
    }

    /// <summary>Stops the server (fast shutdown: sessions are cut), keeping its data; <see cref="StartAgainAsync"/> brings it back on the same port.</summary>
    public async Task StopAsync(CancellationToken cancellationToken = default)
    {
        await RunAsync(Path.Combine(BinDirectory, "pg_ctl"), ["-D", DataDirectory, "-m", "fast", "-w", "stop"], _runAsPostgresUser, cancellationToken);
        _down = true;
    }

    /// <summary>Starts a server stopped by <see cref="StopAsync"/> again, on the same port, and waits until it accepts connections.</summary>
    public async Task StartAgainAsync(CancellationToken cancellationToken = default)
    {
        await RunAsync(Path.Combine(BinDirectory, "pg_ctl"),
            ["-D", DataDirectory, "-l", Path.Combine(_root, "server.log"), "-o", $"-p {Port}", "-w", "-t", "60", "start"],
            _runAsPostgresUser, cancellationToken);
        _down = false;
        await WaitUntilAcceptingAsync(cancellationToken);
    }

    public async ValueTask DisposeAsync()
    {
        if (Interlocked.Exchange(ref _stopped, 1) != 0)
        {
            return;
        }

        AppDomain.CurrentDomain.ProcessExit -= OnProcessExit;
        try
        {
            if (!_down)
            {
                await RunAsync(Path.Combine(BinDirectory, "pg_ctl"), ["-D", DataDirectory, "-m", "immediate", "-w", "stop"], _runAsPostgresUser, CancellationToken.None);
            }
        }
        finally
        {
            DeleteDirectory(_root);
        }
    }

    private async Task WaitUntilAcceptingAsync(CancellationToken cancellationToken)
    {
        // pg_ctl -w already waited for the postmaster to report ready; this proves it end to end
        // over TCP, polling a bounded number of times.
        var watch = Stopwatch.StartNew();
        while (true)
        {
            try
            {
                await using var connection = new NpgsqlConnection(AdminConnectionString());
                await connection.OpenAsync(cancellationToken);
                return;
            }
            catch (NpgsqlException) when (watch.Elapsed < ReadyTimeout)
            {
                await Task.Delay(ReadyRetryDelay, cancellationToken);
            }
        }
    }

    /// <summary>Unpooled, so that the server keeps no idle sessions of ours (CREATE DATABASE needs none on its template).</summary>
    private string AdminConnectionString() => new NpgsqlConnectionStringBuilder(ConnectionStringFor("postgres")) { Pooling = false }.ConnectionString;

    private static string FindBinDirectory()
    {
        var configured = Environment.GetEnvironmentVariable(BinDirectoryVariable);
        IEnumerable<string> candidates = !string.IsNullOrWhiteSpace(configured)
            ? [configured]
            : Directory.Exists(DebianRoot)
                ? Directory.GetDirectories(DebianRoot)
                    .OrderByDescending(d => double.TryParse(Path.GetFileName(d), NumberStyles.Float, CultureInfo.InvariantCulture, out var v) ? v : 0)
                    .Select(d => Path.Combine(d, "bin"))
                : [];
        foreach (var candidate in candidates)
        {
            if (new[] { "initdb", "pg_ctl", "postgres" }.All(tool => File.Exists(Path.Combine(candidate, tool))))
            {
                return candidate;
            }
        }

        throw new InvalidOperationException(
            $"PostgreSQL server binaries (initdb, pg_ctl, postgres) were not found in {configured ?? $"{DebianRoot}/*/bin"}. " +
            "The tests start their own PostgreSQL server from them: run .ci/install-prerequisites (it installs Debian's postgresql package), " +
            $"or set {BinDirectoryVariable} to a directory holding them.");
    }

    private static int FindFreePort()
    {
        using var listener = new TcpListener(IPAddress.Loopback, 0);
        listener.Start();
        return ((IPEndPoint)listener.LocalEndpoint).Port;
    }

    private static async Task RunAsync(string file, IReadOnlyList<string> arguments, bool asPostgresUser, CancellationToken cancellationToken)
    {
        var start = StartInfo(file, arguments, asPostgresUser);
        using var timeout = CancellationTokenSource.CreateLinkedTokenSource(cancellationToken);
        timeout.CancelAfter(CommandTimeout);
        using var process = Process.Start(start) ?? throw new InvalidOperationException($"Could not start {start.FileName}.");
        var output = process.StandardOutput.ReadToEndAsync(timeout.Token);
        var errors = process.StandardError.ReadToEndAsync(timeout.Token);
        try
        {
            await process.WaitForExitAsync(timeout.Token);
        }
        catch (OperationCanceledException)
        {
            process.Kill(entireProcessTree: true);
            throw;
        }

        if (process.ExitCode != 0)
        {
            throw new InvalidOperationException($"{string.Join(' ', [start.FileName, .. start.ArgumentList])} exited with {process.ExitCode}: {(await errors).Trim()} {(await output).Trim()}");
        }
    }

    private static ProcessStartInfo StartInfo(string file, IReadOnlyList<string> arguments, bool asPostgresUser)
    {
        var start = new ProcessStartInfo
        {
            FileName = asPostgresUser ? "runuser" : file,
            RedirectStandardOutput = true,
            RedirectStandardError = true,
            UseShellExecute = false,
        };
        if (asPostgresUser)
        {
            foreach (var argument in (string[])["-u", Superuser, "--", file])
            {
                start.ArgumentList.Add(argument);
            }
        }

        foreach (var argument in arguments)
        {
            start.ArgumentList.Add(argument);
        }

        return start;
    }

    private static async Task CleanUpAfterFailedStartAsync(PostgresServer? server, string root)
    {
        if (server is not null)
        {
            try
            {
                await server.DisposeAsync();
            }
            catch (InvalidOperationException)
            {
                // Already down; the directory is deleted below either way.
            }
        }

        DeleteDirectory(root);
    }

    private static string ReadLog(string root)
    {
        try
        {
            return File.ReadAllText(Path.Combine(root, "server.log"));
        }
        catch (IOException)
        {
            return "(no server log)";
        }
    }

    private static void DeleteDirectory(string path)
    {
        try
        {
            Directory.Delete(path, recursive: true);
        }
        catch (DirectoryNotFoundException)
        {
        }
    }

    /// <summary>The safety net when a test run ends without disposing: never leave a server running.</summary>
    private void OnProcessExit(object? sender, EventArgs e)
    {
        if (Interlocked.Exchange(ref _stopped, 1) != 0)
        {
            return;
        }

        var stop = StartInfo(Path.Combine(BinDirectory, "pg_ctl"), ["-D", DataDirectory, "-m", "immediate", "-w", "stop"], _runAsPostgresUser);
        stop.RedirectStandardOutput = stop.RedirectStandardError = false;
        using (var process = Process.Start(stop))
        {
            process?.WaitForExit(TimeSpan.FromSeconds(30));
        }

        DeleteDirectory(_root);
    }

    [GeneratedRegex("^[a-z_][a-z0-9_]{0,62}$")]
    private static partial Regex DatabaseName();
}
