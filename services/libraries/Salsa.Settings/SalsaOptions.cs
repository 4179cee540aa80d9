using System.ComponentModel.DataAnnotations;
using System.Reflection;
using Microsoft.Extensions.Configuration;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Options;

namespace Salsa.Settings;

/// <summary>
/// The one way settings are read: an options type per section, bound by the configuration binder
/// (with its <see cref="ConfigurationPathAttribute"/> settings from elsewhere), its data annotations
/// (and nested options' too) checked — a bad value stops the start with its key and reason — and
/// read as <see cref="IOptions{TOptions}"/> or, for what shapes the registrations themselves (the
/// store, the grid), bound once when registered (<see cref="BindSalsaOptions"/>) and injected.
/// No configuration key is read anywhere else (a test over the sources holds it).
/// </summary>
public static class SalsaOptions
{
    /// <summary>
    /// <c>AddOptions&lt;T&gt;().BindConfiguration(section).ValidateDataAnnotations().ValidateOnStart()</c>,
    /// nested options included; <paramref name="section"/> null binds only the type's
    /// <see cref="ConfigurationPathAttribute"/> settings. Options a host was given typed
    /// (<see cref="Give"/>) take the place of the configuration's.
    /// </summary>
    public static OptionsBuilder<TOptions> AddSalsaOptions<TOptions>(this IServiceCollection services, string? section)
        where TOptions : class
    {
        ArgumentNullException.ThrowIfNull(services);
        var builder = services.AddOptions<TOptions>();
        if (Given<TOptions>(services) is { } given)
        {
            builder.Configure(o => CopyInto(given, o));
        }
        else
        {
            builder.Configure<IConfiguration>((o, configuration) => Bind(o, configuration, section));
        }

        builder.Services.AddSingleton<IValidateOptions<TOptions>>(new AnnotatedOptions<TOptions>(section));
        return builder.ValidateOnStart();
    }

    /// <summary>
    /// Options that shape registrations (which store, whether this process is a silo): bound and
    /// checked now — a bad value is an <see cref="OptionsValidationException"/> naming its key — and
    /// registered as <typeparamref name="TOptions"/> and <see cref="IOptions{TOptions}"/>, so they are
    /// bound once however many registrations ask. Options the host was given typed are used as given.
    /// </summary>
    public static TOptions BindSalsaOptions<TOptions>(this IServiceCollection services, IConfiguration configuration, string? section)
        where TOptions : class, new()
    {
        ArgumentNullException.ThrowIfNull(services);
        ArgumentNullException.ThrowIfNull(configuration);
        if (services.FirstOrDefault(d => d.ServiceType == typeof(Bound<TOptions>))?.ImplementationInstance is Bound<TOptions> bound)
        {
            return bound.Value;
        }

        var options = Given<TOptions>(services) ?? Read<TOptions>(configuration, section);
        Check(options, section);
        services.AddSingleton(new Bound<TOptions>(options));
        services.AddSingleton(options);
        services.AddSingleton(Options.Create(options));
        return options;
    }

    /// <summary>Options bound from <paramref name="configuration"/> and checked, outside a container (a command-line tool's one-off use).</summary>
    public static TOptions Read<TOptions>(IConfiguration configuration, string? section)
        where TOptions : class, new()
    {
        ArgumentNullException.ThrowIfNull(configuration);
        var options = new TOptions();
        Bind(options, configuration, section);
        Check(options, section);
        return options;
    }

    /// <summary>
    /// Hands a host options made by the process that hosts it (the gateway's store for the services
    /// it embeds): registered before the host's own registrations, they win over its configuration.
    /// </summary>
    public static IServiceCollection Give(this IServiceCollection services, object options)
    {
        ArgumentNullException.ThrowIfNull(services);
        ArgumentNullException.ThrowIfNull(options);
        return services.AddSingleton(new GivenOptions(options));
    }

    /// <summary>
    /// The configuration under <paramref name="sections"/> of <paramref name="parent"/>, as a source of
    /// another host's configuration: what an operator wrote for a process holds for the hosts it
    /// embeds, read through their own binding.
    /// </summary>
    public static IConfigurationBuilder AddSections(this IConfigurationBuilder builder, IConfiguration parent, params string[] sections)
    {
        ArgumentNullException.ThrowIfNull(builder);
        ArgumentNullException.ThrowIfNull(parent);
        return builder.AddInMemoryCollection(sections.SelectMany(s => parent.GetSection(s).AsEnumerable()).Where(kv => kv.Value is not null));
    }

    private static TOptions? Given<TOptions>(IServiceCollection services)
        where TOptions : class =>
        services.Select(d => d.ServiceType == typeof(GivenOptions) ? d.ImplementationInstance as GivenOptions : null).LastOrDefault(g => g?.Value is TOptions)?.Value as TOptions;

    private static void Bind(object options, IConfiguration configuration, string? section)
    {
        if (!string.IsNullOrEmpty(section))
        {
            configuration.GetSection(section).Bind(options);
        }

        foreach (var property in options.GetType().GetProperties(BindingFlags.Public | BindingFlags.Instance))
        {
            if (property.GetCustomAttribute<ConfigurationPathAttribute>() is { } path && configuration.GetSection(path.Path) is var value && value.Exists())
            {
                property.SetValue(options, value.Get(property.PropertyType));
            }
        }
    }

    private static void CopyInto(object from, object to)
    {
        foreach (var property in from.GetType().GetProperties(BindingFlags.Public | BindingFlags.Instance).Where(p => p.CanRead && p.CanWrite && p.GetIndexParameters().Length == 0))
        {
            property.SetValue(to, property.GetValue(from));
        }
    }

    private static void Check<TOptions>(TOptions options, string? section)
        where TOptions : class
    {
        var result = new AnnotatedOptions<TOptions>(section).Validate(null, options);
        if (result.Failed)
        {
            throw new OptionsValidationException(section ?? typeof(TOptions).Name, typeof(TOptions), result.Failures);
        }
    }

    private sealed record Bound<TOptions>(TOptions Value);

    private sealed record GivenOptions(object Value);

    /// <summary>
    /// Checks an options object's data annotations, and those of options objects it holds, naming
    /// each failure by its configuration key (<c>Salsa:Limits:ConcurrentJobs</c>).
    /// </summary>
    private sealed class AnnotatedOptions<TOptions>(string? section) : IValidateOptions<TOptions>
        where TOptions : class
    {
        public ValidateOptionsResult Validate(string? name, TOptions options)
        {
            var failures = new List<string>();
            Check(options, section, failures);
            return failures.Count == 0 ? ValidateOptionsResult.Success : ValidateOptionsResult.Fail(failures);
        }

        private static void Check(object options, string? path, List<string> failures)
        {
            var results = new List<ValidationResult>();
            if (!Validator.TryValidateObject(options, new ValidationContext(options), results, validateAllProperties: true))
            {
                failures.AddRange(results.Select(r => $"{Key(options, path, r.MemberNames.FirstOrDefault())}: {r.ErrorMessage}"));
            }

            foreach (var property in options.GetType().GetProperties().Where(p => p.PropertyType.IsClass && p.PropertyType != typeof(string) && p.GetIndexParameters().Length == 0
                && p.PropertyType.Namespace?.StartsWith("Salsa", StringComparison.Ordinal) == true))
            {
                if (property.GetValue(options) is { } nested)
                {
                    Check(nested, Key(options, path, property.Name), failures);
                }
            }
        }

        // A member's configuration key: its own path when it has one, else under the section.
        private static string Key(object options, string? path, string? member) =>
            member is null ? path ?? ""
            : options.GetType().GetProperty(member)?.GetCustomAttribute<ConfigurationPathAttribute>() is { } own ? own.Path
            : string.IsNullOrEmpty(path) ? member : $"{path}:{member}";
    }
}
