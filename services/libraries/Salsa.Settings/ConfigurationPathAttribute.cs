namespace Salsa.Settings;

/// <summary>
/// A setting of an options type that lives outside the type's section: bound from this configuration
/// path, a value (<c>ConnectionStrings:salsa</c>, <c>urls</c>) or a section (<c>Kestrel:Endpoints</c>),
/// when the path is present.
/// </summary>
[AttributeUsage(AttributeTargets.Property, AllowMultiple = false)]
public sealed class ConfigurationPathAttribute(string path) : Attribute
{
    public string Path { get; } = path;
}
