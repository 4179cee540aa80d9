using System.Globalization;
using Microsoft.AspNetCore.Diagnostics;
using Microsoft.AspNetCore.Http;
using Microsoft.AspNetCore.Mvc;
using Microsoft.Extensions.Logging;

namespace Salsa.Hosting.Errors;

/// <summary>
/// Turns exceptions into RFC 7807 responses: bad input is a 4xx naming what was wrong (with a
/// Retry-After on 429), anything else a 500 without internals — logged, never crashing the service.
/// </summary>
internal sealed partial class ProblemDetailsExceptionHandler(IProblemDetailsService problems, ILogger<ProblemDetailsExceptionHandler> logger) : IExceptionHandler
{
    public async ValueTask<bool> TryHandleAsync(HttpContext httpContext, Exception exception, CancellationToken cancellationToken)
    {
        var classified = ServiceErrors.Classify(exception);
        var status = classified is { } c ? (int)c.Http : StatusCodes.Status500InternalServerError;
        if (status >= StatusCodes.Status500InternalServerError)
        {
            LogUnexpected(logger, httpContext.Request.Method, httpContext.Request.Path, exception);
        }

        if (ServiceErrors.RetryAfter(exception) is { } retry)
        {
            httpContext.Response.Headers.RetryAfter = Math.Ceiling(retry.TotalSeconds).ToString(CultureInfo.InvariantCulture);
        }

        httpContext.Response.StatusCode = status;
        return await problems.TryWriteAsync(new ProblemDetailsContext
        {
            HttpContext = httpContext,
            Exception = exception,
            ProblemDetails = new ProblemDetails
            {
                Status = status,
                Title = classified?.Title ?? "Unexpected error",
                Detail = classified is null ? "The service failed to handle the request; it has been logged." : Describe(exception),
            },
        });
    }

    // The framework wraps a malformed body's JSON error; the inner message says what was wrong.
    private static string Describe(Exception exception) =>
        exception is BadHttpRequestException { InnerException: { } inner } ? $"{exception.Message} {inner.Message}" : ServiceErrors.Message(exception);

    [LoggerMessage(Level = LogLevel.Error, Message = "Unexpected error handling {Method} {Path}")]
    private static partial void LogUnexpected(ILogger logger, string method, PathString path, Exception exception);
}
