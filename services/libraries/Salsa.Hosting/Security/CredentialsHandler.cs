using System.Globalization;
using System.Security.Cryptography;
using System.Text;
using System.Text.Encodings.Web;
using System.Text.Json;
using Microsoft.AspNetCore.Authentication;
using Microsoft.AspNetCore.Http;
using Microsoft.AspNetCore.Mvc;
using Microsoft.Extensions.Logging;
using Microsoft.Extensions.Options;
using Salsa.Store;

namespace Salsa.Hosting.Security;

/// <summary>
/// Authenticates API keys and the service key, and answers every challenge and refusal of the
/// service (bearer tokens included): 401 or 403 with a ProblemDetails over REST, UNAUTHENTICATED or
/// PERMISSION_DENIED over gRPC. With authentication off it makes every caller the tenant
/// <c>local</c> with every scope. A message never repeats what the caller sent.
/// </summary>
internal sealed class CredentialsHandler(
    IOptionsMonitor<AuthenticationSchemeOptions> options,
    ILoggerFactory loggerFactory,
    UrlEncoder encoder,
    ApiKeys keys,
    IOptions<AuthSettings> authOptions,
    ServiceSecurity security,
    IProblemDetailsService problems)
    : AuthenticationHandler<AuthenticationSchemeOptions>(options, loggerFactory, encoder)
{
    public const string SchemeName = "ApiKey";

    /// <summary>Where the authorization step leaves the scope an endpoint needs, for the 403's message.</summary>
    internal const string RequiredScopeItem = "salsa.required-scope";

    private const string Challenge = "This service needs credentials: an API key (header X-Api-Key, or Authorization: ApiKey <key>) or a bearer token from the identity provider.";

    protected override async Task<AuthenticateResult> HandleAuthenticateAsync()
    {
        if (!security.Enabled)
        {
            var tenant = Request.Headers[CredentialHeaders.Tenant].ToString() is { Length: > 0 } named && Tenants.IsValid(named) ? named : Tenants.Local;
            return Success(tenant, Tenants.Local, Scopes.All);
        }

        if (PresentedKey(Request) is not { } presented)
        {
            return AuthenticateResult.NoResult();
        }

        if (authOptions.Value.ServiceKey is { Length: > 0 } serviceKey
            && CryptographicOperations.FixedTimeEquals(Encoding.UTF8.GetBytes(presented), Encoding.UTF8.GetBytes(serviceKey)))
        {
            var tenant = Request.Headers[CredentialHeaders.Tenant].ToString();
            return Tenants.IsValid(tenant)
                ? Success(tenant, CallerClaims.ServiceHolder, [Scopes.Read, Scopes.Run])
                : AuthenticateResult.Fail($"A call with the service key names the tenant it acts for in the {CredentialHeaders.Tenant} header.");
        }

        try
        {
            var record = await keys.VerifyAsync(presented, Context.Connection.RemoteIpAddress?.ToString() ?? "", Context.RequestAborted).ConfigureAwait(false);
            return record is null
                ? AuthenticateResult.Fail("The API key is not valid, or it was revoked.")
                : Success(record.Tenant, record.Id, record.Scopes);
        }
        catch (TooManyFailuresException refused)
        {
            return AuthenticateResult.Fail(refused);
        }
    }

    private AuthenticateResult Success(string tenant, string holder, IEnumerable<string> scopes) =>
        AuthenticateResult.Success(new AuthenticationTicket(CallerClaims.Principal(Scheme.Name, tenant, holder, scopes), Scheme.Name));

    /// <summary>An API key from <c>X-Api-Key</c>, <c>Authorization: ApiKey</c>, or <c>Authorization: Bearer salsa_…</c>.</summary>
    internal static string? PresentedKey(HttpRequest request)
    {
        if (request.Headers[CredentialHeaders.Key].ToString() is { Length: > 0 } header)
        {
            return header.Trim();
        }

        var authorization = request.Headers.Authorization.ToString();
        if (authorization.StartsWith("ApiKey ", StringComparison.OrdinalIgnoreCase))
        {
            return authorization["ApiKey ".Length..].Trim();
        }

        return authorization.StartsWith("Bearer " + ApiKeys.Prefix, StringComparison.OrdinalIgnoreCase) ? authorization["Bearer ".Length..].Trim() : null;
    }

    protected override async Task HandleChallengeAsync(AuthenticationProperties properties)
    {
        // Why authentication failed, if it did: each handler keeps its result for the request, so
        // asking again (through the scheme that chose it) costs nothing.
        var failure = (await Context.AuthenticateAsync(ServiceSecurity.PolicyScheme).ConfigureAwait(false)).Failure;
        if (failure is TooManyFailuresException tooMany)
        {
            var seconds = Math.Max(1, (int)Math.Ceiling(tooMany.RetryAfter.TotalSeconds)).ToString(CultureInfo.InvariantCulture);
            Response.Headers.RetryAfter = seconds;
            await RespondAsync(Refusals.TooManyFailures, $"{tooMany.Message} Retry after {seconds} s.").ConfigureAwait(false);
            return;
        }

        var detail = failure switch
        {
            null => Challenge,
            AuthenticationFailureException => failure.Message, // ours: says what is wrong, never what was sent
            _ => $"The bearer token was refused ({failure.GetType().Name}).",
        };
        Response.Headers.WWWAuthenticate = "ApiKey, Bearer";
        await RespondAsync(Refusals.Unauthenticated, detail).ConfigureAwait(false);
    }

    protected override Task HandleForbiddenAsync(AuthenticationProperties properties)
    {
        var scope = Context.Items[RequiredScopeItem] as string ?? "another";
        return RespondAsync(Refusals.Forbidden, $"These credentials lack the '{scope}' scope this operation needs.");
    }

    private async Task RespondAsync((int Http, int Grpc, string Title) status, string detail)
    {
        if (IsGrpc(Request))
        {
            WriteGrpcStatus(Response, status.Grpc, detail);
            return;
        }

        Response.StatusCode = status.Http;
        var problem = new ProblemDetails { Status = status.Http, Title = status.Title, Detail = detail };
        // A caller that accepts no JSON (an EventSource asks for text/event-stream only) still gets the problem.
        if (!await problems.TryWriteAsync(new ProblemDetailsContext { HttpContext = Context, ProblemDetails = problem }).ConfigureAwait(false))
        {
            await Response.WriteAsJsonAsync(problem, (JsonSerializerOptions?)null, "application/problem+json").ConfigureAwait(false);
        }
    }

    internal static bool IsGrpc(HttpRequest request) =>
        request.ContentType?.StartsWith("application/grpc", StringComparison.OrdinalIgnoreCase) == true;

    /// <summary>A trailers-only gRPC response: what every gRPC client reads as this status.</summary>
    internal static void WriteGrpcStatus(HttpResponse response, int code, string message)
    {
        response.StatusCode = StatusCodes.Status200OK;
        response.ContentType = "application/grpc";
        response.Headers["grpc-status"] = code.ToString(CultureInfo.InvariantCulture);
        response.Headers["grpc-message"] = Uri.EscapeDataString(message);
    }
}

file static class Refusals
{
    public static (int Http, int Grpc, string Title) Unauthenticated { get; } = (401, 16, "Unauthenticated");

    public static (int Http, int Grpc, string Title) Forbidden { get; } = (403, 7, "Forbidden");

    public static (int Http, int Grpc, string Title) TooManyFailures { get; } = (429, 8, "Too many failed authentications");
}
