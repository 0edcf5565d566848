export const theme = {
  space: { xs: "4px", sm: "8px", md: "16px" },
  color: { text: "#1d1d1f", border: "#4a4a4a", accent: "#0a7cff" },
};
