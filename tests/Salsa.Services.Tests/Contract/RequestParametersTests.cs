using Google.Protobuf;
using Google.Protobuf.Reflection;
using Salsa.Clustering.Annealing;
using Salsa.Clustering.Fingerprints;
using Salsa.Clustering.KMeans;
using Salsa.Clustering.Mds;
using Salsa.Contracts.Annealing;
using Salsa.Contracts.Common;
using Salsa.Contracts.Fingerprints;
using Salsa.Contracts.KMeans;
using Salsa.Contracts.Mds;
using Salsa.Contracts.Operations;
using Salsa.Hosting;

namespace Salsa.Services.Tests.Contract;

/// <summary>
/// An algorithm's parameters are written once, on its proto request message; these tests hold the
/// other sides to it: every parameter reaches the algorithm's options by its name (set, it is the
/// value; unset, the algorithm's default), every bound is enforced with the field named, and the
/// workflow reference shows the options' defaults and the configured limits.
/// </summary>
public sealed class RequestParametersTests
{
    public static TheoryData<string> Requests => [.. s_pairs.Keys];

    private static readonly Dictionary<string, (Func<IMessage> Request, object Defaults)> s_pairs = new()
    {
        ["annealing"] = (() => new StartAnnealingRequest(), new AnnealingOptions()),
        ["kmeans"] = (() => new StartKMeansRequest(), new KMeansOptions()),
        ["mds"] = (() => new StartEmbeddingRequest(), new SmacofOptions()),
        ["butina"] = (() => new StartButinaRequest(), new ButinaOptions()),
    };

    [Theory]
    [MemberData(nameof(Requests))]
    public void Bind_EveryParameterSet_ReachesTheOptionsPropertyOfItsName(string name)
    {
        var (create, defaults) = s_pairs[name];
        var request = create();
        var parameters = RequestParameters.Fields(request.Descriptor).Where(f => !f.IsInput).ToList();
        Assert.NotEmpty(parameters);
        foreach (var field in parameters)
        {
            field.Descriptor.Accessor.SetValue(request, SampleOf(field));
        }

        var options = Bind(request, defaults);

        Assert.All(parameters, field =>
            Assert.Equal(Convert.ToDouble(SampleOf(field)), Convert.ToDouble(options.GetType().GetProperty(field.Descriptor.PropertyName)!.GetValue(options))));
    }

    [Theory]
    [MemberData(nameof(Requests))]
    public void Bind_NothingSet_IsTheAlgorithmsDefaults(string name)
    {
        var (create, defaults) = s_pairs[name];

        Assert.Equal(defaults, Bind(create(), defaults));
    }

    [Theory]
    [MemberData(nameof(Requests))]
    public void Check_EachBoundBroken_RefusedNamingTheField(string name)
    {
        var (create, _) = s_pairs[name];
        foreach (var field in RequestParameters.Fields(create().Descriptor).Where(f => f.Kind is ParameterKind.Integer or ParameterKind.Number))
        {
            foreach (var value in Breaking(field.Rule))
            {
                var request = Valid(create());
                field.Descriptor.Accessor.SetValue(request, field.Kind == ParameterKind.Integer ? (object)(int)value : value);

                var refusal = Assert.Throws<InvalidParameterException>(() => RequestParameters.Check(request));
                Assert.Equal(field.Name, refusal.Field);
                Assert.StartsWith(field.Name, refusal.Message, StringComparison.Ordinal);
            }
        }
    }

    [Theory]
    [MemberData(nameof(Requests))]
    public void Check_TheRequiredFieldsAlone_Pass(string name) => RequestParameters.Check(Valid(s_pairs[name].Request()));

    [Fact]
    public void Describe_ShowsTheOptionsDefaultsAndTheConfiguredLimits()
    {
        var limits = new ServiceLimits { MaxClusters = 77, MaxIterations = 500 };

        var parameters = RequestParameters.Describe<StartAnnealingRequest>(new AnnealingOptions(), limits.Of).ToDictionary(p => p.Name);

        Assert.DoesNotContain("datasetId", parameters.Keys);
        Assert.True(parameters["maxClusters"].Required);
        Assert.Null(parameters["maxClusters"].Default);
        Assert.Equal(77, parameters["maxClusters"].Maximum);
        Assert.Equal(500, parameters["maxIterationsPerTemperature"].Maximum);
        Assert.Equal(new AnnealingOptions().CoolingFactor, parameters["coolingFactor"].Default!.GetValue<double>());
        Assert.Equal((0d, 1d), (parameters["coolingFactor"].ExclusiveMinimum!.Value, parameters["coolingFactor"].ExclusiveMaximum!.Value));
        Assert.Null(parameters["startTemperature"].Default);
        Assert.All(parameters.Values, p => Assert.False(string.IsNullOrWhiteSpace(p.Description), $"{p.Name} has no help."));
    }

    [Fact]
    public void CheckParameters_OverAConfiguredLimit_NamesTheFieldAndTheSetting()
    {
        var limits = new ServiceLimits { MaxIterations = 500 };
        var request = new StartAnnealingRequest { DatasetId = Guid.NewGuid().ToString(), MaxClusters = 3, MaxIterationsPerTemperature = 501 };

        var refusal = Assert.Throws<Salsa.Hosting.Errors.LimitExceededException>(() => limits.CheckParameters(request));

        Assert.Equal("501 iterations (maxIterationsPerTemperature) exceed this service's limit of 500 (Salsa:Limits:MaxIterations).", refusal.Message);
    }

    private static object Bind(IMessage request, object defaults) =>
        typeof(RequestParameters).GetMethod(nameof(RequestParameters.Bind))!.MakeGenericMethod(defaults.GetType()).Invoke(null, [request, defaults])!;

    /// <summary>The request with its required fields at valid values and nothing else set.</summary>
    private static IMessage Valid(IMessage request)
    {
        foreach (var field in RequestParameters.Fields(request.Descriptor).Where(f => f.Rule.Required))
        {
            field.Descriptor.Accessor.SetValue(request, field.Descriptor.FieldType == FieldType.String ? Guid.NewGuid().ToString() : (object)(int)Math.Max(1, field.Rule.Minimum));
        }

        return request;
    }

    /// <summary>A value within the field's rules and unlike the defaults.</summary>
    private static object SampleOf(RequestField field)
    {
        var low = field.Rule.HasMinimum ? field.Rule.Minimum : field.Rule.HasExclusiveMinimum ? field.Rule.ExclusiveMinimum : 0;
        var high = field.Rule.HasMaximum ? field.Rule.Maximum : field.Rule.HasExclusiveMaximum ? field.Rule.ExclusiveMaximum : low + 10;
        return field.Descriptor.FieldType switch
        {
            FieldType.Bool => true,
            FieldType.Double => low + ((high - low) * 0.37),
            _ => (int)Math.Floor(high) == (int)low ? (int)low : (int)low + 1 + ((int)(high - low) > 2 ? 2 : 0),
        };
    }

    /// <summary>Values just outside each bound of <paramref name="rule"/>.</summary>
    private static IEnumerable<double> Breaking(Parameter rule)
    {
        if (rule.HasMinimum)
        {
            yield return rule.Minimum - 1;
        }

        if (rule.HasMaximum)
        {
            yield return rule.Maximum + 1;
        }

        if (rule.HasExclusiveMinimum)
        {
            yield return rule.ExclusiveMinimum;
        }

        if (rule.HasExclusiveMaximum)
        {
            yield return rule.ExclusiveMaximum;
        }
    }
}
