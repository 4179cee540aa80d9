using System.ComponentModel.DataAnnotations;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Options;

namespace Salsa.Hosting;

/// <summary>
/// The one way settings are read: an options type per section, bound from configuration, its
/// data annotations (and nested options' too) checked when the host starts — a bad value stops the
/// start with its key and reason — and read as <see cref="IOptions{TOptions}"/>.
/// </summary>
public static class SalsaOptions
{
    /// <summary><c>AddOptions&lt;T&gt;().BindConfiguration(section).ValidateDataAnnotations().ValidateOnStart()</c>, nested options included.</summary>
    public static OptionsBuilder<TOptions> AddSalsaOptions<TOptions>(this IServiceCollection services, string section)
        where TOptions : class
    {
        ArgumentNullException.ThrowIfNull(services);
        var builder = services.AddOptions<TOptions>().BindConfiguration(section);
        builder.Services.AddSingleton<IValidateOptions<TOptions>>(new AnnotatedOptions<TOptions>(section));
        return builder.ValidateOnStart();
    }

    /// <summary>
    /// Checks an options object's data annotations, and those of options objects it holds, naming
    /// each failure by its configuration key (<c>Salsa:Limits:ConcurrentJobs</c>).
    /// </summary>
    private sealed class AnnotatedOptions<TOptions>(string section) : IValidateOptions<TOptions>
        where TOptions : class
    {
        public ValidateOptionsResult Validate(string? name, TOptions options)
        {
            var failures = new List<string>();
            Check(options, section, failures);
            return failures.Count == 0 ? ValidateOptionsResult.Success : ValidateOptionsResult.Fail(failures);
        }

        private static void Check(object options, string path, List<string> failures)
        {
            var results = new List<ValidationResult>();
            if (!Validator.TryValidateObject(options, new ValidationContext(options), results, validateAllProperties: true))
            {
                failures.AddRange(results.Select(r => $"{path}:{string.Join(",", r.MemberNames)}: {r.ErrorMessage}"));
            }

            foreach (var property in options.GetType().GetProperties().Where(p => p.PropertyType.IsClass && p.PropertyType != typeof(string) && p.GetIndexParameters().Length == 0
                && p.PropertyType.Namespace?.StartsWith("Salsa", StringComparison.Ordinal) == true))
            {
                if (property.GetValue(options) is { } nested)
                {
                    Check(nested, $"{path}:{property.Name}", failures);
                }
            }
        }
    }
}
