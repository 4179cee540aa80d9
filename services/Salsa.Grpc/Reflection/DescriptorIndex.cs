using Google.Protobuf;
using Google.Protobuf.Reflection;

namespace Salsa.Grpc;

/// <summary>
/// Immutable lookup tables for server reflection: files by name, files by the symbols they
/// declare (services, methods, messages, enums, nested types), extensions by extendee and number.
/// </summary>
internal sealed class DescriptorIndex
{
    private readonly Dictionary<string, FileDescriptor> _files = new(StringComparer.Ordinal);
    private readonly Dictionary<string, FileDescriptor> _symbols = new(StringComparer.Ordinal);
    private readonly Dictionary<string, List<FieldDescriptor>> _extensions = new(StringComparer.Ordinal);

    public DescriptorIndex(IReadOnlyList<ServiceDescriptor> services)
    {
        ServiceNames = [.. services.Select(s => s.FullName)];
        foreach (var service in services)
        {
            AddFile(service.File);
        }
    }

    public IReadOnlyList<string> ServiceNames { get; }

    public FileDescriptor? FindFile(string name) => _files.GetValueOrDefault(name);

    public FileDescriptor? FindFileContainingSymbol(string symbol) => _symbols.GetValueOrDefault(symbol);

    public FileDescriptor? FindFileContainingExtension(string extendee, int number) =>
        _extensions.TryGetValue(extendee, out var fields) ? fields.Find(f => f.FieldNumber == number)?.File : null;

    /// <summary>Null when the type is unknown; empty when it is known but has no extensions.</summary>
    public IReadOnlyList<int>? FindExtensionNumbers(string extendee)
    {
        if (_extensions.TryGetValue(extendee, out var fields))
        {
            return [.. fields.Select(f => f.FieldNumber)];
        }

        return _symbols.ContainsKey(extendee) ? [] : null;
    }

    /// <summary>The file first, then its transitive dependencies, each once.</summary>
    public static List<ByteString> WithDependencies(FileDescriptor file)
    {
        var result = new List<ByteString>();
        var seen = new HashSet<string>(StringComparer.Ordinal);
        var pending = new Queue<FileDescriptor>();
        pending.Enqueue(file);
        while (pending.TryDequeue(out var next))
        {
            if (!seen.Add(next.Name))
            {
                continue;
            }

            result.Add(next.SerializedData);
            foreach (var dependency in next.Dependencies)
            {
                pending.Enqueue(dependency);
            }
        }

        return result;
    }

    private void AddFile(FileDescriptor file)
    {
        if (!_files.TryAdd(file.Name, file))
        {
            return;
        }

        foreach (var service in file.Services)
        {
            _symbols.TryAdd(service.FullName, file);
            foreach (var method in service.Methods)
            {
                _symbols.TryAdd(method.FullName, file);
            }
        }

        foreach (var message in file.MessageTypes)
        {
            AddMessage(message, file);
        }

        foreach (var enumType in file.EnumTypes)
        {
            _symbols.TryAdd(enumType.FullName, file);
        }

        AddExtensions(file.Extensions);
        foreach (var dependency in file.Dependencies)
        {
            AddFile(dependency);
        }
    }

    private void AddMessage(MessageDescriptor message, FileDescriptor file)
    {
        _symbols.TryAdd(message.FullName, file);
        foreach (var nested in message.NestedTypes)
        {
            AddMessage(nested, file);
        }

        foreach (var enumType in message.EnumTypes)
        {
            _symbols.TryAdd(enumType.FullName, file);
        }

        AddExtensions(message.Extensions);
    }

    private void AddExtensions(ExtensionCollection extensions)
    {
        foreach (var field in extensions.UnorderedExtensions)
        {
            var extendee = field.ExtendeeType.FullName;
            if (!_extensions.TryGetValue(extendee, out var fields))
            {
                _extensions[extendee] = fields = [];
            }

            fields.Add(field);
        }
    }
}
