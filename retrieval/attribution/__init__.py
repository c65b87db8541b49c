"""Attribution of any text to the official text: sentence support and quote verification (`attribute`)."""

from retrieval.attribution.attribute import (MAX_DOC_IDS, MAX_TEXT_CHARS, AttributionInputError, UnknownDocuments,
                                             attribute, checked_input)
from retrieval.attribution.models import (AttributionResult, AttributionSummary, QuoteCheck, QuoteStatus,
                                          SentenceAttribution)

__all__ = ["MAX_DOC_IDS", "MAX_TEXT_CHARS", "AttributionInputError", "AttributionResult", "AttributionSummary",
           "QuoteCheck", "QuoteStatus", "SentenceAttribution", "UnknownDocuments", "attribute", "checked_input"]
