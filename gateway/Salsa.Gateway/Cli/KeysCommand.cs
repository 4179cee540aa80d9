using System.CommandLine;
using Microsoft.Extensions.Logging.Abstractions;
using Microsoft.Extensions.Options;
using Salsa.Hosting.Security;
using Salsa.Settings;
using Salsa.Store;

namespace Salsa.Gateway.Cli;

/// <summary>
/// <c>keys create | list | revoke</c>: API keys in the store the platform shares (the same one the
/// gateway and services are configured with: <c>ConnectionStrings__salsa</c>, or <c>--store</c> for
/// a SQLite file). The first admin key of a deployment is made here; later ones may come from
/// <c>POST /api/keys</c>.
/// </summary>
public static class KeysCommand
{
    public static Command Create()
    {
        var store = new Option<string?>("--store") { Description = "The SQLite file of the store (default .salsa/salsa.db); a PostgreSQL store is named by ConnectionStrings__salsa.", HelpName = "path" };
        var tenant = new Option<string>("--tenant") { Description = "The tenant the key acts for.", DefaultValueFactory = _ => Tenants.Local };
        var scopes = new Option<string[]>("--scopes") { Description = "read, run and/or admin (each includes the ones before it).", Required = true, AllowMultipleArgumentsPerToken = true };
        var name = new Option<string>("--name") { Description = "Who or what holds the key.", Required = true };

        var create = new Command("create", "Creates an API key and prints it (only its hash is stored: it cannot be shown again).") { store, tenant, scopes, name };
        create.SetAction(async (parse, cancellationToken) => await RefusingBadInputAsync(parse, async () =>
        {
            await using var keys = await OpenAsync(parse.GetValue(store), cancellationToken).ConfigureAwait(false);
            var created = await keys.Keys.CreateAsync(parse.GetValue(tenant)!, parse.GetRequiredValue(name), parse.GetRequiredValue(scopes), cancellationToken).ConfigureAwait(false);
            await parse.InvocationConfiguration.Error.WriteLineAsync($"Created key {created.Record.Id} for tenant '{created.Record.Tenant}' with scopes {string.Join(", ", created.Record.Scopes)}. Keep it now: it is not stored.").ConfigureAwait(false);
            await parse.InvocationConfiguration.Output.WriteLineAsync(created.Key).ConfigureAwait(false);
            return 0;
        }).ConfigureAwait(false));

        var listTenant = new Option<string?>("--tenant") { Description = "Only this tenant's keys." };
        var list = new Command("list", "Lists keys (never their secrets).") { store, listTenant };
        list.SetAction(async (parse, cancellationToken) => await RefusingBadInputAsync(parse, async () =>
        {
            if (parse.GetValue(listTenant) is { } only)
            {
                Tenants.Require(only, "--tenant");
            }

            await using var keys = await OpenAsync(parse.GetValue(store), cancellationToken).ConfigureAwait(false);
            var output = parse.InvocationConfiguration.Output;
            await output.WriteLineAsync("id                tenant            scopes           created                    revoked                    name").ConfigureAwait(false);
            foreach (var key in await keys.Store.ListApiKeysAsync(parse.GetValue(listTenant), cancellationToken).ConfigureAwait(false))
            {
                await output.WriteLineAsync($"{key.Id,-17} {key.Tenant,-17} {string.Join(',', key.Scopes),-16} {key.Created,-26:u} {(key.Revoked is { } r ? r.ToString("u") : "-"),-26} {key.Name}").ConfigureAwait(false);
            }

            return 0;
        }).ConfigureAwait(false));

        var id = new Argument<string>("id") { Description = "The key's id (the 16 hex digits after salsa_)." };
        var revoke = new Command("revoke", "Revokes a key: it authenticates nothing from now on.") { store, id };
        revoke.SetAction(async (parse, cancellationToken) =>
        {
            await using var keys = await OpenAsync(parse.GetValue(store), cancellationToken).ConfigureAwait(false);
            var key = parse.GetRequiredValue(id);
            if (!await keys.Keys.RevokeAsync(key, cancellationToken).ConfigureAwait(false))
            {
                await parse.InvocationConfiguration.Error.WriteLineAsync($"No key {key} that is not revoked already.").ConfigureAwait(false);
                return 1;
            }

            await parse.InvocationConfiguration.Error.WriteLineAsync($"Revoked key {key}.").ConfigureAwait(false);
            return 0;
        });

        return new Command("keys", "Creates, lists and revokes API keys in the platform's store.") { create, list, revoke };
    }

    /// <summary>A tenant, scope or name that is not valid: its message and the usage exit code, not a stack trace.</summary>
    private static async Task<int> RefusingBadInputAsync(ParseResult parse, Func<Task<int>> action)
    {
        try
        {
            return await action().ConfigureAwait(false);
        }
        catch (ArgumentException exception)
        {
            await parse.InvocationConfiguration.Error.WriteLineAsync(exception.Message).ConfigureAwait(false);
            return GatewayCommandLine.UsageError;
        }
    }

    private static async Task<OpenKeys> OpenAsync(string? sqlitePath, CancellationToken cancellationToken)
    {
        var configuration = new ConfigurationBuilder().AddEnvironmentVariables().AddInMemoryCollection(
            sqlitePath is null ? [] : [new KeyValuePair<string, string?>($"{StoreOptions.Section}:{nameof(StoreOptions.SqlitePath)}", sqlitePath)]).Build();
        var store = DataStoreFactory.Create(SalsaOptions.Read<StoreOptions>(configuration, StoreOptions.Section), NullLoggerFactory.Instance);
        try
        {
            await store.InitializeAsync(cancellationToken).ConfigureAwait(false);
        }
        catch
        {
            await store.DisposeAsync().ConfigureAwait(false);
            throw;
        }

        return new OpenKeys(store, new ApiKeys(store, Options.Create(new AuthSettings()), TimeProvider.System));
    }

    private sealed record OpenKeys(IDataStore Store, ApiKeys Keys) : IAsyncDisposable
    {
        public async ValueTask DisposeAsync()
        {
            Keys.Dispose();
            await Store.DisposeAsync().ConfigureAwait(false);
        }
    }
}
