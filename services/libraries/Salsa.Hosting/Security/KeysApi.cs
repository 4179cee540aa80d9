using Microsoft.AspNetCore.Builder;
using Microsoft.AspNetCore.Http;
using Microsoft.AspNetCore.Http.HttpResults;
using Microsoft.AspNetCore.Routing;
using Salsa.Hosting.Errors;
using Salsa.Store;

namespace Salsa.Hosting.Security;

/// <summary>A key to create for the caller's tenant: who holds it, with which scopes.</summary>
public sealed record ApiKeyRequest(string Name, IReadOnlyList<string> Scopes);

/// <summary>A key as listed: never its secret.</summary>
public sealed record ApiKeyView(string Id, string Name, string Tenant, IReadOnlyList<string> Scopes, DateTimeOffset Created, DateTimeOffset? Revoked)
{
    public static ApiKeyView From(ApiKeyRecord record)
    {
        ArgumentNullException.ThrowIfNull(record);
        return new(record.Id, record.Name, record.Tenant, record.Scopes, record.Created, record.Revoked);
    }
}

/// <summary>A key just created: <see cref="Key"/> is shown this once and kept nowhere.</summary>
public sealed record CreatedApiKeyView(string Key, ApiKeyView Info);

/// <summary>
/// REST for the caller's tenant's API keys, <c>admin</c> scope only: create (the key is in the answer,
/// once), list, revoke. Another tenant's keys are not found; keys for any tenant are made by the
/// operator with the <c>keys</c> command, on the store itself.
/// </summary>
public static class KeysApi
{
    public static RouteGroupBuilder MapKeysApi(this IEndpointRouteBuilder app)
    {
        var group = app.MapGroup("/api/keys").WithTags("Keys").RequireAuthorization(Scopes.Admin);

        group.MapPost("/", async Task<Created<CreatedApiKeyView>> (ApiKeys keys, ApiKeyRequest request, CancellationToken cancellationToken) =>
        {
            var created = await keys.CreateAsync(CallerTenant.Current, request.Name, request.Scopes ?? [], cancellationToken);
            return TypedResults.Created($"/api/keys/{created.Record.Id}", new CreatedApiKeyView(created.Key, ApiKeyView.From(created.Record)));
        }).WithName("CreateApiKey").WithSummary("Creates an API key of the caller's tenant with scopes read, run and/or admin; the key is in this answer only.");

        group.MapGet("/", async (IDataStore store, CancellationToken cancellationToken) =>
            TypedResults.Ok((await store.ListApiKeysAsync(CallerTenant.Current, cancellationToken)).Select(ApiKeyView.From).ToList()))
            .WithName("ListApiKeys").WithSummary("The caller's tenant's keys, oldest first, revoked ones too; never their secrets.");

        group.MapDelete("/{id}", async (ApiKeys keys, IDataStore store, string id, CancellationToken cancellationToken) =>
        {
            var key = await store.GetApiKeyAsync(id, cancellationToken);
            return key is { Revoked: null } && key.Tenant == CallerTenant.Current && await keys.RevokeAsync(id, cancellationToken)
                ? TypedResults.NoContent()
                : throw new NotFoundException($"No key {id} of this tenant that is not revoked already.");
        }).WithName("RevokeApiKey").WithSummary("Revokes a key: it authenticates nothing from now on (other processes trust a key they verified for Salsa:Auth:KeyCacheTime at most).");

        return group;
    }
}
