using System.Diagnostics;
using Microsoft.AspNetCore.Http;
using Microsoft.AspNetCore.Http.Json;
using Microsoft.Extensions.Options;

namespace Salsa.Hosting.Errors;

/// <summary>
/// Writes a ProblemDetails as <c>application/problem+json</c> when the caller's Accept names no JSON
/// (an event stream's <c>text/event-stream</c>, say), where ASP.NET Core's own writer declines and
/// the error would become a bare 500. Registered after that writer, so it answers only then.
/// </summary>
internal sealed class ProblemJsonFallbackWriter(IOptions<ProblemDetailsOptions> problems, IOptions<JsonOptions> json) : IProblemDetailsWriter
{
    public bool CanWrite(ProblemDetailsContext context) => true;

    public ValueTask WriteAsync(ProblemDetailsContext context)
    {
        ArgumentNullException.ThrowIfNull(context);
        var http = context.HttpContext;
        var problem = context.ProblemDetails;
        problem.Status ??= http.Response.StatusCode;
        problem.Extensions.TryAdd("traceId", Activity.Current?.Id ?? http.TraceIdentifier);
        problems.Value.CustomizeProblemDetails?.Invoke(context);
        return new(http.Response.WriteAsJsonAsync(problem, json.Value.SerializerOptions, "application/problem+json", http.RequestAborted));
    }
}
