namespace Salsa.Contracts.Operations;

/// <summary>A request's field breaks its rules: <see cref="Field"/> names it (its JSON name), the message says how, in words a user reads.</summary>
public sealed class InvalidParameterException(string field, string message) : ArgumentException(message)
{
    public string Field { get; } = field;
}
